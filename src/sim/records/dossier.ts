import { type Static, Type } from '@sinclair/typebox';
import { DateTime, Int32 } from './record-parts.js';

export const DossierFileKind = Type.Union([
  Type.Literal('damage'),
  Type.Literal('document'),
  Type.Literal('other'),
  Type.Literal('questionnaire'),
]);

/** A file in a dossier folder. Fields chosen here. */
export const DossierFile = Type.Object({
  id: Type.String(),
  name: Type.String(),
  type: DossierFileKind,
  size: Int32,
  uploadedAt: DateTime,
});
export type DossierFile = Static<typeof DossierFile>;

/** Dossier folder of an order, GET /driver-api/dossier/orders/{id}. Fields chosen here. */
export const DossierFolder = Type.Object({ orderId: Type.String(), files: Type.Array(DossierFile) });
export type DossierFolder = Static<typeof DossierFolder>;

/** Answer of a dossier upload: the stored file and what it was attached to. Fields chosen here. */
export const DossierUploadResult = Type.Object({
  file: DossierFile,
  attachedTo: Type.Object({
    kind: Type.Union([Type.Literal('rides'), Type.Literal('tasks')]),
    ids: Type.Array(Type.String()),
  }),
});
export type DossierUploadResult = Static<typeof DossierUploadResult>;
