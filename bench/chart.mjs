// Draws bench/ratios.svg from BENCHMARKS.md: for each benchmark row of the newest run of every
// bench (the first section whose table headed `| bench | case | prism-native | peer | ratio
// (runs) | target |` has MCP rows; newer sections re-ran only some benches), how
// many times better than its peer prism-native was, grouped by peer, on a log scale where 1x is
// parity. A newer section that re-measured one peer alone (a table headed `| set | ... |
// <peer> | ratio ... |`) replaces that peer's rows with its first row. `npm run bench` runs it
// after the benchmarks; `node bench/chart.mjs` alone redraws the chart. No dependencies.
import { readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')

const cells = (line) => line.trim().replace(/^\||\|$/g, '').split('|').map((c) => c.trim())

/** The tables of a Markdown text: `{ header: string[], rows: string[][] }`. */
function tables(text) {
  const out = []
  const lines = text.split('\n')
  for (let i = 0; i + 1 < lines.length; i++) {
    if (!lines[i].startsWith('|') || !/^\|[\s|:-]+\|$/.test(lines[i + 1].trim())) continue
    const t = { header: cells(lines[i]), rows: [] }
    for (i += 2; i < lines.length && lines[i].startsWith('|'); i++) t.rows.push(cells(lines[i]))
    out.push(t)
  }
  return out
}

/** Sections of BENCHMARKS.md, newest first as the file keeps them: `{ heading, body }`. */
function sections(text) {
  return text
    .split(/^## /m)
    .slice(1)
    .map((s) => ({ heading: s.slice(0, s.indexOf('\n')).trim(), body: s }))
}

/** The numbers of one ratio cell ("0.18, 0.15, 0.13", "0.456-0.458", "5.89x, 5.77x"), in order. */
function numbers(cell) {
  return [...cell.replace(/,(?=\d{3}\b)/g, '').matchAll(/\d+(?:\.\d+)?/g)].map((m) => Number(m[0]))
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : Math.sqrt(s[s.length / 2 - 1] * s[s.length / 2])
}

/** The peer's name in a peer cell: the words before its first figure, without quoted code. */
const peerName = (cell) => cell.replace(/\s*`[^`]*`/g, '').split(/\s\d|\s\(/)[0].trim()

/**
 * How many times better than the peer, from one ratio cell: a "faster" cell and a ">=" target
 * are already higher-is-better; every other ratio is native / peer, lower is better.
 */
function advantage(ratioCell, target) {
  const higherIsBetter = /faster/.test(ratioCell) || /^>=/.test(target)
  const xs = numbers(ratioCell).filter((x) => x > 0)
  if (xs.length === 0) return undefined
  const vs = higherIsBetter ? xs : xs.map((x) => 1 / x)
  return { value: median(vs), low: Math.min(...vs), high: Math.max(...vs), runs: xs.length }
}

export function ratiosFromBenchmarks(markdown) {
  const secs = sections(markdown)
  const benchTables = (s) => tables(s.body).filter((t) => t.header[0] === 'bench' && t.header[3] === 'peer')
  const fullAt = secs.findIndex((s) => benchTables(s).some((t) => t.rows.some((r) => /^MCP/.test(r[0]))))
  if (fullAt < 0) throw new Error('BENCHMARKS.md has no table headed | bench | case | prism-native | peer | ratio (runs) | target | with MCP rows')
  const full = secs[fullAt]
  const rows = []
  for (const t of benchTables(full)) {
    let lastPeer = ''
    for (const [bench, kase, , peerCell, ratio, target = ''] of t.rows) {
      if (!peerCell || !ratio) continue
      // a peer cell with only figures ("SDK" implied) is the previous row's peer
      // a case "against the <peer> (...)" names its peer in full ("bare" is "bare line-protocol client")
      const named = /^against the (.+?)(?: \(|$)/.exec(kase)?.[1]
      const peer = named ?? (/^[\d(]/.test(peerName(peerCell)) ? lastPeer : peerName(peerCell))
      lastPeer = peer
      // a row that reports several cases at once ("a / b / c") has one ratio per case
      const cases = kase.split(' / ')
      const ratios = ratio.split(' / ')
      const targets = target.split(' / ')
      if (cases.length > 1 && cases.length === ratios.length) {
        cases.forEach((c, i) => {
          const a = advantage(ratios[i] + (/faster/.test(ratio) ? ' faster' : ''), targets[0].startsWith('>=') ? '>=' : '')
          if (a) rows.push({ peer, label: `${bench}: ${c}`, ...a, section: full.heading })
        })
        continue
      }
      const a = advantage(ratio, target)
      if (a) rows.push({ peer, label: `${bench}: ${kase.replace(/`/g, '').replace(/\s*\([^()]*\)$/, '')}`, ...a, section: full.heading })
    }
  }
  // newer sections that measured one peer alone replace its rows
  const replaced = new Set()
  for (const s of secs.slice(0, fullAt)) {
    for (const t of tables(s.body)) {
      const r = t.header.findIndex((h) => h.startsWith('ratio'))
      if (t.header[0] !== 'set' || r < 0 || t.rows.length === 0) continue
      const peer = t.header[r - 1]
      if (replaced.has(peer)) continue // a newer section already did
      replaced.add(peer)
      const first = t.rows[0]
      const a = advantage(first[r], '>=')
      if (!a) continue
      const bench = rows.find((x) => x.peer === peer)?.label.split(':')[0] ?? 'policy'
      for (let i = rows.length - 1; i >= 0; i--) if (rows[i].peer === peer) rows.splice(i, 1)
      rows.push({ peer, label: `${bench}: ${first[0]} set (${s.heading.split(':')[0]})`, ...a, section: s.heading })
    }
  }
  return { rows, section: full.heading }
}

const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
const fmt = (x) => (x >= 10 ? x.toFixed(0) : x >= 1 ? x.toFixed(1) : x.toFixed(2)) + 'x'

export function svg({ rows, section }) {
  const peers = [...new Set(rows.map((r) => r.peer))]
  const W = 960
  const labelW = 430
  const plotL = labelW + 10
  const plotR = W - 70
  const rowH = 20
  const lo = 0.25
  const hi = 100
  const x = (v) => plotL + ((Math.log10(Math.min(hi, Math.max(lo, v))) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo))) * (plotR - plotL)
  const parts = []
  let y = 58
  for (const peer of peers) {
    parts.push(`<text x="10" y="${y + 14}" class="peer">against ${esc(peer)}</text>`)
    y += rowH
    for (const r of rows.filter((q) => q.peer === peer)) {
      const x1 = x(1)
      const xv = x(r.value)
      const good = r.value >= 1
      parts.push(`<text x="22" y="${y + 14}" class="label">${esc(r.label.length > 66 ? r.label.slice(0, 63) + '...' : r.label)}</text>`)
      parts.push(`<rect x="${Math.min(x1, xv).toFixed(1)}" y="${y + 4}" width="${Math.max(1, Math.abs(xv - x1)).toFixed(1)}" height="${rowH - 8}" class="${good ? 'win' : 'loss'}"/>`)
      if (r.runs > 1 && r.high > r.low) {
        parts.push(`<line x1="${x(r.low).toFixed(1)}" x2="${x(r.high).toFixed(1)}" y1="${y + rowH / 2}" y2="${y + rowH / 2}" class="spread"/>`)
      }
      parts.push(`<text x="${(Math.max(x1, xv, x(r.high)) + 5).toFixed(1)}" y="${y + 14}" class="value">${fmt(r.value)}</text>`)
      y += rowH
    }
    y += 6
  }
  const ticks = [0.25, 0.5, 1, 2, 5, 10, 20, 50, 100]
  const axis = ticks
    .map((t) => `<line x1="${x(t).toFixed(1)}" x2="${x(t).toFixed(1)}" y1="48" y2="${y}" class="${t === 1 ? 'parity' : 'grid'}"/><text x="${x(t).toFixed(1)}" y="${y + 14}" class="tick">${fmt(t)}</text>`)
    .join('')
  const H = y + 40
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">
<style>.title{font-size:15px;font-weight:bold}.sub{fill:#555}.peer{font-weight:bold}.label{fill:#222}.value{fill:#222}.tick{fill:#555;text-anchor:middle}.grid{stroke:#ddd}.parity{stroke:#333;stroke-width:1.5}.win{fill:#2e7d32}.loss{fill:#c62828}.spread{stroke:#000;stroke-width:1.5}</style>
<rect width="100%" height="100%" fill="#fff"/>
<text x="10" y="20" class="title">prism-native against its peers: how many times better (log scale; right of 1x is better)</text>
<text x="10" y="38" class="sub">${esc(`From BENCHMARKS.md: the run of ${section.split(':')[0]} and newer single-peer runs. Bar: median of the runs; black line: their spread.`)}</text>
${axis}
${parts.join('\n')}
<text x="10" y="${H - 8}" class="sub">time and memory ratios inverted (peer / prism-native); throughput and speed-up ratios as measured. Generated by bench/chart.mjs.</text>
</svg>
`
}

export function writeChart() {
  const data = ratiosFromBenchmarks(readFileSync(join(root, 'BENCHMARKS.md'), 'utf8'))
  const file = join(root, 'bench', 'ratios.svg')
  writeFileSync(file, svg(data))
  return { file, rows: data.rows.length }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { file, rows } = writeChart()
  console.log(`wrote ${file} (${rows} rows)`)
}
