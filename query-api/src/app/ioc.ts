/** tsoa's IoC hook: each controller is built per request around the services of the composition root. */
import type { Request } from 'express';
import type { IocContainer, ServiceIdentifier } from '@tsoa/runtime';
import type { ApiServices } from './services';

type ControllerClass = new (services: ApiServices) => unknown;

export const iocContainer = (request: Request): IocContainer => ({
  get<T>(controller: ServiceIdentifier<T>): T {
    const services = request.app.locals.services as ApiServices;
    return new (controller as unknown as ControllerClass)(services) as T;
  },
});
