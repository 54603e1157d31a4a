import { catalogue } from './catalogue.ts';
import en from './en/siteSettings.ts';

export const t = await catalogue('siteSettings', en);
