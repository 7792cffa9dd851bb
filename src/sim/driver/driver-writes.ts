import {
  ActivityChange,
  ChatConfirmRequest,
  ChatMessageRequest,
  MobileDeviceRequest,
  NewGood,
  NewScanTrace,
  PushRegistration,
  QuestionnaireAnswers,
  RefuelingStop,
  RideUpdate,
  TaskUpdate,
  TrackingPosition,
} from '../records/index.js';
import { addGood, addScanTrace } from './good-writes.js';
import { answerQuestionnaire } from './questionnaire-answers.js';
import { patchRide } from './ride-update.js';
import { patchTask } from './task-update.js';
import { notFound, unknownReference } from './validate-body.js';
import { globalWrite, operatorWrite, type WriteRoute } from './write-route.js';

/** Every Driver API write of docs/api.md, Operations except the dossier uploads (binary bodies, see dossier-routes). */
export const driverWrites: readonly WriteRoute[] = [
  operatorWrite({
    method: 'PATCH',
    path: '/driver-api/rides/:id',
    operation: 'updateRide',
    body: RideUpdate,
    changesPlan: true,
    apply({ operator, params, body }) {
      const ride = operator.rides.get(Number(params.id));
      if (!ride || String(ride.id) !== params.id) throw notFound('ride', params.id!);
      operator.rides.set(ride.id, patchRide(ride, body));
    },
  }),
  operatorWrite({
    method: 'PATCH',
    path: '/driver-api/tasks/:id',
    operation: 'updateTask',
    body: TaskUpdate,
    changesPlan: true,
    apply({ data, operator, params, body, now }) {
      const task = operator.tasks.get(params.id!);
      if (!task) throw notFound('task', params.id!);
      operator.tasks.set(task.id, patchTask(task, body, now, data.master));
    },
  }),
  operatorWrite({
    method: 'POST',
    path: '/driver-api/goods/',
    operation: 'addGood',
    body: NewGood,
    changesPlan: true,
    apply: ({ data, operator, body, now }) => addGood(data, operator, body, now),
  }),
  operatorWrite({
    method: 'POST',
    path: '/driver-api/goods/:id/scan-traces',
    operation: 'addScanTrace',
    body: NewScanTrace,
    changesPlan: true,
    apply: ({ data, operator, params, body }) => addScanTrace(data, operator, params.id!, body),
  }),
  operatorWrite({
    method: 'POST',
    path: '/driver-api/vehicles/:id/refueling-stops',
    operation: 'addRefuelingStop',
    body: RefuelingStop,
    apply({ data, operator, params, body }) {
      if (!data.master.vehicles.some((vehicle) => vehicle.id === params.id))
        throw notFound('vehicle', params.id!);
      operator.writes.refuelingStops.push({ vehicleId: params.id, ...body });
    },
  }),
  operatorWrite({
    method: 'POST',
    path: '/driver-api/settings/push-registrations',
    operation: 'registerPush',
    body: PushRegistration,
    apply: ({ operator, body, now }) =>
      operator.writes.pushRegistrations.set(body.pushToken, { ...body, at: now }),
  }),
  operatorWrite({
    method: 'POST',
    path: '/driver-api/activity-changes/',
    operation: 'changeActivity',
    body: ActivityChange,
    apply({ data, operator, body }) {
      if (
        !data.master.activities.some((activity) => activity.id === body.activityId && activity.mobileEnabled)
      ) {
        throw unknownReference('activityId', body.activityId);
      }
      const secondId = body.operatorIdSecond ?? 0;
      const second = secondId > 0 ? data.operators.get(String(secondId)) : undefined;
      if (secondId > 0 && !second) throw unknownReference('operatorIdSecond', secondId);
      for (const target of [operator, second])
        target?.writes.activityChanges.push({ ...body, operatorId: operator.operatorId });
    },
  }),
  operatorWrite({
    method: 'POST',
    path: '/driver-api/tracking-positions/',
    operation: 'addTrackingPosition',
    body: TrackingPosition,
    apply: ({ operator, body }) => void operator.writes.trackingPositions.push(body),
  }),
  operatorWrite({
    method: 'POST',
    path: '/driver-api/chat/messages',
    operation: 'sendChatMessage',
    body: ChatMessageRequest,
    apply({ data, operator, body, now }) {
      const known = data.master.chatContacts.some((contact) => contact.id === body.toId);
      if (!known || body.toId === operator.operatorId) throw unknownReference('toId', body.toId);
      const id = data.ids.next('message');
      const message = {
        id,
        fromId: operator.operatorId,
        toId: body.toId,
        text: body.text,
        sentAt: now,
        readAt: null,
      };
      operator.chat.set(id, message);
    },
  }),
  operatorWrite({
    method: 'POST',
    path: '/driver-api/chat/messages/:id/confirm',
    operation: 'confirmChatMessage',
    body: ChatConfirmRequest,
    apply({ operator, params, body, now }) {
      const message = operator.chat.get(params.id!);
      if (!message) throw notFound('chat message', params.id!);
      // The first confirmation wins: confirming again keeps the time it was read.
      operator.chat.set(message.id, { ...message, readAt: message.readAt ?? body.readAt ?? now });
    },
  }),
  globalWrite({
    method: 'POST',
    path: '/driver-api/questionnaires/:id/answers',
    operation: 'answerQuestionnaire',
    body: QuestionnaireAnswers,
    apply: ({ data, params, body }) => answerQuestionnaire(data, params.id!, body),
  }),
  operatorWrite({
    method: 'PUT',
    path: '/driver-api/devices/:hardwareCode',
    operation: 'putDevice',
    body: MobileDeviceRequest,
    apply({ data, operator, params, body, now }) {
      const hardwareCode = params.hardwareCode!;
      const registeredAt = data.devices.get(hardwareCode)?.registeredAt ?? now;
      const { mutationId: _mutationId, ...request } = body;
      const device = { hardwareCode, operatorId: operator.operatorId, request };
      data.devices.set(hardwareCode, { ...device, registeredAt, updatedAt: now });
    },
  }),
];
