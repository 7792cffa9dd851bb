// What the spec guarantees, and nothing more (docs/records.md): the envelopes and the login answer,
// which the client checks strictly; records as JSON objects; the write bodies the spec shows.
// tms-sim's own record shapes live with it (src/sim/records/).
export * from './common.js';
export * from './envelopes.js';
export * from './json-object.js';
export * from './write-bodies.js';
