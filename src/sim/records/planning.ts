import { type Static, Type } from '@sinclair/typebox';
import { Good } from './good.js';
import { DateTime } from './record-parts.js';
import { Ride } from './ride.js';
import { Task } from './task.js';

/** Planning object: all planned tasks, rides and goods of an operator. Envelope fields chosen here. */
export const Planning = Type.Object({
  operatorId: Type.String(),
  generatedAt: DateTime,
  tasks: Type.Array(Task),
  rides: Type.Array(Ride),
  goods: Type.Array(Good),
});
export type Planning = Static<typeof Planning>;
