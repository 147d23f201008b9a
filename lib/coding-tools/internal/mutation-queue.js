'use strict'
// withFileMutationQueue: a process-global mutex per real path. Calls for the same file run
// one after another in the order they were made; different files run in parallel; a throwing
// call releases its slot.
//
// The key of a call is its real path, which takes an asynchronous `realpath` to learn. Those
// lookups run one at a time, in call order, so a call whose lookup happens to resolve sooner
// (say, a direct path against a symlink to the same file) cannot take its place in the file's
// queue ahead of an earlier call.
const fsp = require('node:fs/promises')
const path = require('node:path')

const tails = new Map()
let registrations = Promise.resolve()

async function mutationKey(filePath) {
  const abs = path.resolve(filePath)
  try {
    return await fsp.realpath(abs)
  } catch (err) {
    if (err && (err.code === 'ENOENT' || err.code === 'ENOTDIR')) return abs
    throw err
  }
}

/** Looks up the key of `filePath` and takes the next place in its queue. */
async function enqueue(filePath) {
  const key = await mutationKey(filePath)
  const previous = tails.get(key) ?? Promise.resolve()
  let release
  const mine = new Promise((resolve) => {
    release = resolve
  })
  const tail = previous.then(() => mine)
  tails.set(key, tail)
  return { key, previous, tail, release }
}

/** Runs `fn` once every earlier call for the same file has settled. */
async function withFileMutationQueue(filePath, fn) {
  const registration = registrations.then(() => enqueue(filePath))
  registrations = registration.then(
    () => undefined,
    () => undefined,
  )
  const { key, previous, tail, release } = await registration
  await previous
  try {
    return await fn()
  } finally {
    release()
    if (tails.get(key) === tail) tails.delete(key)
  }
}

module.exports = { withFileMutationQueue }
