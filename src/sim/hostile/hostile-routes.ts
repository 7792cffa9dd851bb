import type { FastifyInstance } from 'fastify';
import type { HostileResponses } from './hostile-responses.js';

/** `PUT`, `GET` and `DELETE /_sim/hostile`; registered inside the admin scope (x-sim-admin). */
export function registerHostileRoutes(admin: FastifyInstance, hostile: HostileResponses): void {
  admin.get('/_sim/hostile', async () => ({ rule: hostile.status() }));
  admin.put('/_sim/hostile', async (request) => ({ rule: hostile.set(request.body) }));
  admin.delete('/_sim/hostile', async () => ({ cleared: hostile.clear() }));
}
