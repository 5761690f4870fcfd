/** The full sweep of fault injection (faults.ts): `pnpm test:faults`, at least 20 trials of each kind (SCANBRIDGE_FAULT_TRIALS for more). */
import { faultSuite } from "./faults.js"

faultSuite(Math.max(20, Number(process.env.SCANBRIDGE_FAULT_TRIALS ?? 20)))
