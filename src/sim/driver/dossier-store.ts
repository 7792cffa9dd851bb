import type { DossierFile } from '../records/index.js';
import type { DriverData } from './driver-data.js';

/** A file to put in dossier folders. */
export interface NewDossierFile {
  name: string;
  type: DossierFile['type'];
  bytes: Buffer;
  uploadedAt: string;
}

/**
 * Stores the file in the folder of every given order, under its name (the download subpath); a file
 * of the same name in a folder is replaced, like a file system would.
 */
export function addDossierFile(
  data: DriverData,
  orderIds: Iterable<string>,
  input: NewDossierFile,
): DossierFile {
  const file: DossierFile = {
    id: data.ids.next('file'),
    name: input.name,
    type: input.type,
    size: input.bytes.length,
    uploadedAt: input.uploadedAt,
  };
  for (const orderId of orderIds) {
    const folder = data.dossiers.get(orderId) ?? new Map();
    folder.set(input.name, { file, bytes: input.bytes });
    data.dossiers.set(orderId, folder);
  }
  return file;
}
