// Child process: opens (and so migrates) a store file at the same moment as its siblings, then
// creates one run; prints the run id.
import { SqliteRunStore } from '../../dist/index.js';

const [path, startAtText] = process.argv.slice(2);
const wait = Number(startAtText) - Date.now();
if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
const store = await SqliteRunStore.open({ path });
const run = await store.createRun({ configuration: 'racing' });
await store.close();
process.stdout.write(`${run.id}\n`);
