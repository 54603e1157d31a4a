import { catalogue } from './catalogue.ts';
import en from './en/allSites.ts';

export const t = await catalogue('allSites', en);
