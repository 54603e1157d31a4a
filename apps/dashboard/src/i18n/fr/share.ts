import type { Translation } from '../catalogue.ts';
import type en from '../en/share.ts';

export default {
  linkOpensNothing: 'Ce lien n’ouvre rien',
  linkRevoked: 'Il a peut-être été révoqué. Demandez-en un nouveau à la personne qui vous l’a envoyé.',
  opening: 'Ouverture du tableau de bord partagé',
  openShared: 'Ouvrir le tableau de bord partagé',
  sharedDashboard: 'Un tableau de bord partagé',
  passwordProtected: 'Ce tableau de bord est protégé par un mot de passe.',
  password: 'Mot de passe',
  open: 'Ouvrir',
  documentTitle: '{domain} · partagé via Footfall',
  readOnly: 'Un tableau de bord partagé, en lecture seule',
  countedBy: 'Compté par Footfall.',
} satisfies Translation<typeof en>;
