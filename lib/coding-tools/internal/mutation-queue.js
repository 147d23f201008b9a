'use strict'
// withFileMutationQueue: a process-global mutex per real path. Calls for the same file run
// one after another; different files run in parallel; a throwing call releases its slot.
const fsp = require('node:fs/promises')
const path = require('node:path')

const tails = new Map()

async function mutationKey(filePath) {
  const abs = path.resolve(filePath)
  try {
    return await fsp.realpath(abs)
  } catch (err) {
    if (err && (err.code === 'ENOENT' || err.code === 'ENOTDIR')) return abs
    throw err
  }
}

/** Runs `fn` once every earlier call for the same file has settled. */
async function withFileMutationQueue(filePath, fn) {
  const key = await mutationKey(filePath)
  const previous = tails.get(key) ?? Promise.resolve()
  let release
  const mine = new Promise((resolve) => {
    release = resolve
  })
  const tail = previous.then(() => mine)
  tails.set(key, tail)
  await previous
  try {
    return await fn()
  } finally {
    release()
    if (tails.get(key) === tail) tails.delete(key)
  }
}

module.exports = { withFileMutationQueue }
