import { catalogue } from './catalogue.ts';
import en from './en/health.ts';

export const t = await catalogue('health', en);
