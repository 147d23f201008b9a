import cjs from './tool-conformance.js'
export const { assertToolDispatchConforms, assertToolBlocked, dispatchAndCollect } = cjs
