// A host's agent turn over one library's stack, shared by the turn benchmarks: the library's
// scheduler (dispatchToolCallsInOrder, all calls allowed in flight at once) → its
// dispatchToolCall with a static permission policy, the given validator and secret redaction.

/**
 * A function that runs one turn of `calls` through `lib` with `tools` (`allow`: the permission
 * keys, `validate`: the ToolValidator, `secrets`: redacted values, `bound`: see below, `emit`: the
 * host's event callback, if any) and resolves to the turn's history, once every call's row was
 * appended.
 */
export function hostTurn(lib, { tools, allow, validate, secrets, bound = false, emit }) {
  const registry = lib.createToolRegistry(tools)
  const permission = lib.createStaticPermissionPolicy({ allow })
  // `bound`: the dispatch options bound once with prism-native's createToolDispatcher (which
  // runs the engine's own tools natively) instead of a closure over dispatchToolCall.
  const dispatcher = bound ? lib.createToolDispatcher({ registry, permission, validate, secrets, emit, context: { sessionId: 's', runId: 'r' } }) : undefined
  return async (calls) => {
    const history = []
    const ctx = {
      sessionId: 's',
      runId: 'r',
      signal: new AbortController().signal,
      history,
      toolConcurrency: calls.length,
      appendMessage: async () => {},
      dispatchToolCall: dispatcher ?? ((call) => lib.dispatchToolCall({ call, registry, permission, validate, secrets, emit, context: { sessionId: 's', runId: 'r', toolCallId: call.id } })),
    }
    await lib.dispatchToolCallsInOrder(calls, ctx)
    if (history.length !== calls.length) throw new Error(`turn appended ${history.length} rows`)
    return history
  }
}
