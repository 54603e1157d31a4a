export { createOnce, DIR_MODE, ensurePrivateDir, FILE_MODE, fsyncDir, readIfExists } from './files.ts';
export {
  type DataPaths,
  dataPaths,
  type Instance,
  prepareInstance,
  publicBaseUrl,
  setupLink,
  setupToken,
} from './instance.ts';
export { footfallVersion } from './version.ts';
