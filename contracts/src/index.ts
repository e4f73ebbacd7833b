/**
 * Shared contracts: types and constants only. The zod validators live in `./validation`
 * and are imported from there, so that importing this module pulls in no runtime dependency.
 */
export * from './attribution';
export * from './channels';
export * from './customers';
export * from './events';
export * from './mcp';
export * from './privacy';
export * from './pushes';
export * from './reports';
export * from './identity-events';
