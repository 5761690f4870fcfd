/** This package's version: the one the User-Agent names. A test pins it to package.json. */
export const VERSION = "0.1.0"

/** `Scanbridge/0.1.0 (platform)`: which library, which version, which of its clients. */
export const userAgent = (api: string): string => `Scanbridge/${VERSION} (${api})`
