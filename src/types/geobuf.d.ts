// geobuf 4 ships no types; these are the two functions the service uses.
declare module 'geobuf' {
  import type Pbf from 'pbf';
  export function encode(obj: object, pbf: Pbf): Uint8Array;
  export function decode(pbf: Pbf): Record<string, unknown>;
}
