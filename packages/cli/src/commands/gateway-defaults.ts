/** What `scanbridge gateway` uses when a flag is not given: read by its flags' help and by its run. */
export const DEFAULT_STORE = "./scanbridge-gateway"
