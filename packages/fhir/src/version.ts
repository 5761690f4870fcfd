/** This package's version: the one a bundle's Device names. A test pins it to package.json. */
export const VERSION = "0.1.0"
