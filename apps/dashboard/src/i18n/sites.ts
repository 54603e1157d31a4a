import { catalogue } from './catalogue.ts';
import en from './en/sites.ts';

export const t = await catalogue('sites', en);
