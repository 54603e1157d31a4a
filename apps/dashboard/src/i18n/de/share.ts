import type { Translation } from '../catalogue.ts';
import type en from '../en/share.ts';

export default {
  linkOpensNothing: 'Dieser Link öffnet nichts',
  linkRevoked:
    'Er wurde möglicherweise widerrufen. Bitten Sie die Person, die ihn geschickt hat, um einen neuen.',
  opening: 'Das freigegebene Dashboard wird geöffnet',
  openShared: 'Das freigegebene Dashboard öffnen',
  sharedDashboard: 'Ein freigegebenes Dashboard',
  passwordProtected: 'Dieses Dashboard ist durch ein Passwort geschützt.',
  password: 'Passwort',
  open: 'Öffnen',
  documentTitle: '{domain} · freigegeben über Footfall',
  readOnly: 'Ein freigegebenes Dashboard, schreibgeschützt',
  countedBy: 'Gezählt von Footfall.',
} satisfies Translation<typeof en>;
