import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { JsonObject } from '../../schemas/json-object.js';
import type { QuestionnaireAnswers } from '../../schemas/write-bodies.js';
import { type ApiCalls, type CallOptions, type DriverCallOptions, driverRequest } from './api-calls.js';
import type { IdList } from './driver-planning-service.js';
import { buildPath, encodePathSegment } from './request-path.js';

/** The `type` header of a dossier upload (docs/api.md, Operations). */
export type DossierFileKind = 'damage' | 'document' | 'other' | 'questionnaire';

export interface DossierDownload extends DriverCallOptions {
  orderId: string;
  /** File name or sub-path inside the order's dossier; each segment is percent-encoded. */
  subpath: string;
}

export interface DossierUpload extends CallOptions {
  /** Attach to rides or to tasks. */
  attachTo: 'rides' | 'tasks';
  ids: IdList;
  name: string;
  type: DossierFileKind;
  /** A Buffer is retried like any create; a stream is sent once (it cannot be replayed). */
  body: Buffer | Readable;
  /** Sent as header `mutationId`, so getProcessedMutations can tell whether an ambiguous upload landed. @default undefined */
  mutationId?: string | undefined;
}

/** Driver API chat, questionnaires and dossiers (docs/api.md, Operations). */
export function createDriverMessagingService(api: ApiCalls) {
  return {
    getChatMessages: (call: DriverCallOptions & { fromMoment: string; toMoment: string }) =>
      api.list(
        driverRequest('GET', '/driver-api/chat/messages', call, {
          query: { fromMoment: call.fromMoment, toMoment: call.toMoment },
        }),
      ),
    sendChatMessage: (message: JsonObject, call?: DriverCallOptions) =>
      api.send(driverRequest('POST', '/driver-api/chat/messages', call, { body: message })),
    /** Marks a message read; doing so twice changes nothing, so it is repeated safely. */
    confirmChatMessage: (messageId: string, confirm: JsonObject = {}, call?: DriverCallOptions) =>
      api.send(
        driverRequest(
          'POST',
          buildPath('/driver-api/chat/messages/{messageId}/confirm', { messageId }),
          call,
          {
            body: confirm,
            idempotent: true,
          },
        ),
      ),
    getChatContacts: (call?: CallOptions) =>
      api.list(driverRequest('GET', '/driver-api/chat/contacts', call)),
    getQuestionnaires: (call: CallOptions & { latest: boolean }) =>
      api.list(driverRequest('GET', '/driver-api/questionnaires/', call, { query: { latest: call.latest } })),
    submitQuestionnaireAnswers: (
      questionnaireId: string,
      answers: QuestionnaireAnswers,
      call?: CallOptions,
    ) =>
      api.send(
        driverRequest(
          'POST',
          buildPath('/driver-api/questionnaires/{questionnaireId}/answers', { questionnaireId }),
          call,
          {
            body: answers,
          },
        ),
      ),
    getDossierFolder: (call: DriverCallOptions & { orderId: string }) =>
      api.record(driverRequest('GET', buildPath('/driver-api/dossier/orders/{orderId}', call), call)),
    /** Streams a dossier file into `consume`; the body is destroyed once `consume` settles. */
    downloadDossierFile: <T>(
      file: DossierDownload,
      consume: (body: Readable, headers: IncomingHttpHeaders) => Promise<T>,
    ) =>
      api.stream(driverRequest('GET', dossierFilePath(file), file), (response) =>
        consume(response.body, response.headers),
      ),
    uploadDossierFile: (upload: DossierUpload) =>
      api.record(
        driverRequest('POST', `/driver-api/dossier/${upload.attachTo}`, upload, {
          body: upload.body,
          headers: uploadHeaders(upload),
        }),
      ),
  };
}

function uploadHeaders(upload: DossierUpload): Record<string, string> {
  const ids = typeof upload.ids === 'string' ? upload.ids : upload.ids.join(',');
  const headers: Record<string, string> = { ids, name: upload.name, type: upload.type };
  if (upload.mutationId !== undefined) headers.mutationId = upload.mutationId;
  return headers;
}

function dossierFilePath(file: DossierDownload): string {
  const subpath = file.subpath.split('/').map(encodePathSegment).join('/');
  return `${buildPath('/driver-api/dossier/orders/{orderId}', file)}/contents/${subpath}`;
}
