import { catalogue } from './catalogue.ts';
import en from './en/panels.ts';

export const t = await catalogue('panels', en);
