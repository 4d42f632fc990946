/*
 * The error `npm run dist` stops with when what it packs from (package.json, the signing environment) is not usable:
 * it says what to fix, before anything is built.
 */

/** package.json or the signing environment cannot be packed from as they are; the message says what to change. */
export class PackagingSetupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}
