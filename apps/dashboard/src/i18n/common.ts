import { catalogue } from './catalogue.ts';
import en from './en/common.ts';

export const t = await catalogue('common', en);
