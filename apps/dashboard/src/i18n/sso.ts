import { catalogue } from './catalogue.ts';
import en from './en/sso.ts';

export const t = await catalogue('sso', en);
