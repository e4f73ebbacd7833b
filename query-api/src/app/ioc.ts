/** tsoa's IoC hook: controllers are built per request from the app's context (no container library). */
import type { Request } from 'express';
import type { IocContainer, ServiceIdentifier } from '@tsoa/runtime';
import type { AppContext } from './context';

type ControllerClass = new (ctx: AppContext) => unknown;

export const iocContainer = (request: Request): IocContainer => ({
  get<T>(controller: ServiceIdentifier<T>): T {
    const ctx = request.app.locals.ctx as AppContext;
    return new (controller as unknown as ControllerClass)(ctx) as T;
  },
});
