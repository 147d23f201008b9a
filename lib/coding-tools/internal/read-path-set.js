'use strict'
// createReadPathSet: the paths a session has read, for requireReadBeforeWrite.

/** An empty set of read paths: `has`, `add`, `list` (in the order first added) and `clear`. */
function createReadPathSet() {
  const paths = new Set()
  return {
    has: (path) => paths.has(path),
    add: (path) => {
      paths.add(path)
    },
    list: () => [...paths],
    clear: () => paths.clear(),
  }
}

module.exports = { createReadPathSet }
