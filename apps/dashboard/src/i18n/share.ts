import { catalogue } from './catalogue.ts';
import en from './en/share.ts';

export const t = await catalogue('share', en);
