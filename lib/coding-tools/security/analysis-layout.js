'use strict'
// The shell analysis read from the engine's numeric layout (crates/command-analysis/src/layout.rs):
// the engine writes numbers into one reused buffer and returns the few strings that are not
// spans of the command; this file turns them into the analysis object. Its shape is the JSON
// crossing's: `{parts, redirects, metacharacters, unsupported?, deny?, refused?}`, each part
// `{text, argv, name, derived?, deny?, open?, denyOpen?, effect?}` (`effect`: `{effect, option,
// words}`, an option that does what an allow rule naming only the program does not cover),
// each redirect `{op, target, write}`.
const { analyzeShellCommandInto, analysisLayoutWords } = require('../../native.js')

// The layout's numbers, from the engine (read once).
const W = analysisLayoutWords()
const EXTRA = W.extra
const NULL = W.null
const F = W.flags
const P = W.partFlags
const H = W.header
const OPEN_SHIFT = W.openIndexShift
const OPEN_ANY = W.openAny
const EFFECTS = W.effects

/** Words in the reused buffer; an analysis that needs more comes back as JSON instead. */
const BUFFER_WORDS = W.bufferWords
const BUF = new Uint32Array(BUFFER_WORDS)

const NO_REDIRECTS = Object.freeze([])

/** The JSON crossing's object (it leaves out an empty `redirects`). */
function fromJson(json) {
  const analysis = JSON.parse(json)
  if (analysis.redirects === undefined) analysis.redirects = NO_REDIRECTS
  return analysis
}

/** The analysis of `command` (a string), on this thread. */
function analyzeIntoBuffer(command) {
  const extras = analyzeShellCommandInto(command, BUF)
  if (BUF[H.length] === 0) return fromJson(extras)
  let at = H.body
  const str = () => {
    const s = BUF[at]
    const e = BUF[at + 1]
    at += 2
    if (s === NULL) return null
    return s >= EXTRA ? extras.slice(s - EXTRA, e) : command.slice(s, e)
  }
  const flags = BUF[H.flags]
  const nParts = BUF[H.parts]
  const unsupported = flags & F.unsupported ? str() : undefined
  const deny = flags & F.deny ? str() : undefined
  const refused = flags & F.refused ? str() : undefined
  const parts = new Array(nParts)
  for (let i = 0; i < nParts; i++) {
    const pf = BUF[at]
    const argc = BUF[at + 1]
    at += 2
    const text = str()
    const name = pf & P.nameIsProgram ? undefined : str()
    const partDeny = pf & P.deny ? str() : undefined
    let open
    if (pf & P.open) {
      const word = BUF[at++]
      open = { index: word >>> OPEN_SHIFT, any: (word & OPEN_ANY) !== 0, text: str() }
    }
    let effect
    if (pf & P.effect) {
      const code = BUF[at++]
      const option = str()
      const words = new Array(BUF[at++])
      for (let j = 0; j < words.length; j++) words[j] = BUF[at++]
      effect = { effect: EFFECTS[code], option, words }
    }
    const argv = new Array(argc)
    for (let j = 0; j < argc; j++) argv[j] = str()
    const part = { text, argv, name: name === undefined ? argv[0] : name }
    if (pf & P.derived) part.derived = true
    if (partDeny !== undefined) part.deny = partDeny
    if (open !== undefined) part.open = open
    if (pf & P.denyOpen) part.denyOpen = true
    if (effect !== undefined) part.effect = effect
    parts[i] = part
  }
  const nRedirects = BUF[at++]
  let redirects = NO_REDIRECTS
  if (nRedirects > 0) {
    redirects = new Array(nRedirects)
    for (let i = 0; i < nRedirects; i++) {
      const op = str()
      const target = str()
      redirects[i] = { op, target, write: BUF[at++] === 1 }
    }
  }
  const analysis = { parts, redirects, metacharacters: (flags & F.metacharacters) !== 0 }
  if (unsupported !== undefined) analysis.unsupported = unsupported
  if (deny !== undefined) analysis.deny = deny
  if (refused !== undefined) analysis.refused = refused
  return analysis
}

module.exports = { analyzeIntoBuffer, fromJson, BUFFER_WORDS }
