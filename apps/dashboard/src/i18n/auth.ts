import { catalogue } from './catalogue.ts';
import en from './en/auth.ts';

export const t = await catalogue('auth', en);
