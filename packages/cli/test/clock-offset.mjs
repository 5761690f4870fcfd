// A test entry for `scanbridge gateway` run as a process (node --import this): its wall clock
// moved on by SCANBRIDGE_TEST_CLOCK_OFFSET_MS, so that a restart test sees a lease a killed
// gateway left outlived without waiting for it. Effect's Clock reads Date.now, and the gateway,
// its store and its platform client read time through Effect's Clock only; timers are untouched.
// Read by this file alone: the CLI and the libraries never read it.
const offset = Number(process.env.SCANBRIDGE_TEST_CLOCK_OFFSET_MS ?? "0")
if (!Number.isSafeInteger(offset)) throw new Error(`SCANBRIDGE_TEST_CLOCK_OFFSET_MS: not a whole number of milliseconds`)
const now = Date.now
Date.now = () => now() + offset
