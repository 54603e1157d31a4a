export { main } from './main.ts';
export { type ChildSpec, Supervisor, type SupervisorOptions } from './supervisor.ts';
