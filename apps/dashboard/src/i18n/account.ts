import { catalogue } from './catalogue.ts';
import en from './en/account.ts';

export const t = await catalogue('account', en);
