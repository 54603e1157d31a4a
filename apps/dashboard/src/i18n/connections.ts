import { catalogue } from './catalogue.ts';
import en from './en/connections.ts';

export const t = await catalogue('connections', en);
