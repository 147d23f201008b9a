'use strict'
// Sequential middleware hooks (`tool_call`, `tool_result`): registration order, not an onion.
const native = require('../native.js')
const { say, choice } = require('../engine-words.js')
const { errorToErrorInfo } = require('./errors.js')
const { isThenable } = require('./security.js')

function createMiddlewareRegistry(options = {}) {
  const errorPolicy = choice('errorPolicy', options.errorPolicy)
  const secrets = options.secrets
  const onError = options.onError
  const hooks = new Map()

  async function report(hook, error) {
    if (!onError) return
    await onError({ type: 'extension_error', extension: native.middlewareExtensionName(String(hook)), error: errorToErrorInfo(error, secrets) })
  }

  return {
    use(hook, middleware) {
      if (typeof middleware !== 'function') throw new TypeError(say('middlewareFunction'))
      const list = hooks.get(hook) ?? []
      // Copy on write: a run in progress keeps the list it started with.
      hooks.set(hook, [...list, middleware])
      let removed = false
      return () => {
        if (removed) return
        removed = true
        const current = hooks.get(hook) ?? []
        const i = current.indexOf(middleware)
        if (i >= 0) hooks.set(hook, [...current.slice(0, i), ...current.slice(i + 1)])
      }
    },
    list(hook) {
      return hooks.get(hook) ?? []
    },
    async run(hook, value) {
      const list = hooks.get(hook)
      if (list === undefined || list.length === 0) return value
      let current = value
      for (let i = 0; i < list.length; i++) {
        let calls = 0
        let nextValue
        const next = (v) => {
          calls++
          if (calls > 1) throw new Error(native.middlewareNextTwiceMessage(String(hook), i))
          nextValue = v === undefined ? current : v
          return Promise.resolve(nextValue)
        }
        try {
          let ret = list[i](current, next)
          if (isThenable(ret)) ret = await ret
          if (calls > 0) {
            if (ret !== undefined && ret !== nextValue) {
              await report(hook, new Error(native.middlewareValueDroppedMessage(String(hook), i)))
            }
            current = nextValue
          } else {
            current = ret
          }
        } catch (err) {
          if (errorPolicy === 'throw') throw err
          await report(hook, err)
        }
      }
      return current
    },
  }
}

module.exports = { createMiddlewareRegistry }
