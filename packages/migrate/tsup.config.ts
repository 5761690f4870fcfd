import { packageBuild } from "../../tsup.shared"

export default packageBuild(["src/index.ts", "src/normalizer-entry.ts", "src/postgres/index.ts", "src/node/index.ts", "src/node/worker.ts"])
