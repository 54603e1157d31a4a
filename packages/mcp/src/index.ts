export { type ApiGet, type ApiImage, FootfallApiError, httpApi, readAnswer } from './api.ts';
export { BREAKDOWNS, createFootfallMcpServer } from './server.ts';
