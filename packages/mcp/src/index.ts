export { type ApiGet, FootfallApiError, httpApi, readAnswer } from './api.ts';
export { BREAKDOWNS, createFootfallMcpServer } from './server.ts';
