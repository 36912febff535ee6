import { IncomingMessage, ServerResponse, type ServerOptions } from 'node:http';
import type { Express } from 'express';

/**
 * Request and response classes for node:http whose objects are born with the served Express app's
 * own prototypes (`app.request`, `app.response`).
 *
 * Express gives every request and response it handles those prototypes with Object.setPrototypeOf.
 * In V8 that change is costly far beyond the call: a third to a half of each request's objects then
 * outlived the young generation, so the server ran an old-generation collection 4 times a second
 * under load. A bare Express 5 app answered 14,000 requests/s with it and 45,000 without it (16
 * clients, one core); our city list page went from about 3,700 to 5,100-5,300. Born with the right
 * prototype, an object passes through Express's setPrototypeOf unchanged (V8 returns early when
 * the prototype is already the one asked for).
 *
 * A reload (SIGHUP) serves a new app: `serve` switches the prototypes of the objects born from
 * then on. A request born just before a switch still works: Express sets its prototype as usual.
 */
export class AppObjects {
  // Constructors in the style of node:http's own (functions calling the parent), because a class's
  // prototype cannot be replaced.
  private readonly request = function Request(this: IncomingMessage, ...args: unknown[]) {
    Reflect.apply(IncomingMessage, this, args);
  };

  private readonly response = function Response(this: ServerResponse, ...args: unknown[]) {
    Reflect.apply(ServerResponse, this, args);
  };

  constructor() {
    this.request.prototype = IncomingMessage.prototype;
    this.response.prototype = ServerResponse.prototype;
  }

  /** For http.createServer: the classes node:http makes each request's objects with. */
  get serverOptions(): ServerOptions {
    return { IncomingMessage: this.request as unknown as typeof IncomingMessage, ServerResponse: this.response as unknown as typeof ServerResponse };
  }

  /** Objects born from now on have `app`'s prototypes. */
  serve(app: Pick<Express, 'request' | 'response'>) {
    this.request.prototype = app.request;
    this.response.prototype = app.response;
  }
}
