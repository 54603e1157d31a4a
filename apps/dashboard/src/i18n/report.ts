import { catalogue } from './catalogue.ts';
import en from './en/report.ts';

export const t = await catalogue('report', en);
