// `npm run demo`: a host that drives prism-native the way an agent runtime does, with no
// network and no API key. Each part lives in examples/demo/ and runs in file-name order.
import { readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const dir = join(dirname(fileURLToPath(import.meta.url)), 'demo')
for (const file of readdirSync(dir).filter((f) => f.endsWith('.mjs')).sort()) {
  const part = await import(pathToFileURL(join(dir, file)).href)
  console.log(`\n=== ${part.title ?? file} ===`)
  await part.run()
}
