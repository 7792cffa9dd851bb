import type { FastifyInstance } from 'fastify';
import type { StreamTruth } from '../stream-truth.js';

/** One random change applied to the Driver API data, as `POST /_sim/changes` reports it. */
export interface DriverChange {
  readonly kind: string;
  readonly stream: string;
  readonly operatorId?: string;
  readonly id: string;
}

/**
 * The Driver API part of the simulator (docs/api.md, Operations): its data, routes and changes. The core
 * (start-sim) creates it with a SimContext, registers its routes, merges its truth into
 * `GET /_sim/truth` and lets `POST /_sim/changes` pick Driver API changes too.
 */
export interface DriverSim {
  /** Registers every /driver-api/ route on the app. */
  register(app: FastifyInstance): void;
  /** Truth of the Driver API streams of docs/streams.md (tasks, rides, planning, goods, ...). */
  truth(): StreamTruth;
  /** Applies one random change (task status, new task, removed task, new chat message, ...). */
  applyRandomChange(): DriverChange;
}
