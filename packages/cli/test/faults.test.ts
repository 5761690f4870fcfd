/** Fault injection in the default suite: a trial of each kind (faults.ts). `pnpm test:faults` runs the full sweep. */
import { faultSuite } from "./faults.js"

faultSuite(1)
