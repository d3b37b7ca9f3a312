import { run } from './action.js';
import { endWhenDone } from './machine/os/end-process.js';

await run();
// A read given up on (a hung mount) still waits in the thread pool: it must not keep the step alive.
endWhenDone();
