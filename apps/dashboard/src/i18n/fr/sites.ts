import type { Translation } from '../catalogue.ts';
import type en from '../en/sites.ts';

export default {
  sites: 'Sites',
  arrange: 'Organiser',
  addSite: 'Ajouter un site',
  noSiteShared:
    'Aucun site n’est encore partagé avec vous. Demandez à un propriétaire de ce Footfall de vous en partager un.',
  waitingFirstVisit: 'En attente de la première visite',
  trackingStopped: {
    one: 'Suivi arrêté : aucune visite depuis {count} jour',
    other: 'Suivi arrêté : aucune visite depuis {count} jours',
  },
  noVisitFor: { one: 'Aucune visite depuis {count} jour', other: 'Aucune visite depuis {count} jours' },
  visitorsIn30Days: { one: 'visiteur en 30 jours', other: 'visiteurs en 30 jours' },
  pinned: 'Épinglés',
  otherSites: 'Autres sites',
  cookieless: 'Sans cookies',
  cookielessTitle:
    'Compté sans cookies : un hachage quotidien identifie les visiteurs, personne n’est donc reconnu le lendemain',
  arrangeSites: 'Organiser les sites',
  arrangeIntro:
    'Toute personne qui se connecte voit cet ordre. Les sites épinglés viennent en premier, puis chaque groupe.',
  site: 'Site',
  group: 'Groupe',
  move: 'Déplacer',
  pinSite: 'Épingler {domain}',
  groupOf: 'Groupe de {domain}',
  noGroup: 'Aucun groupe',
  moveUp: 'Monter {domain}',
  moveDown: 'Descendre {domain}',
  groups: 'Groupes',
  removeGroup: 'Supprimer le groupe {name}',
  newGroupName: 'Nom du nouveau groupe',
  addGroup: 'Ajouter le groupe',
  save: 'Enregistrer',
  cancel: 'Annuler',
  domain: 'Domaine',
  domainHint: 'L’adresse du site ; une URL collée convient. www. est facultatif.',
  timeZone: 'Fuseau horaire',
  timeZoneHint: 'Les jours et les heures des rapports le suivent.',
  currency: 'Devise',
  currencyHint: 'Les revenus sont affichés dans cette devise.',
  cookielessHint:
    '— aucun cookie : un hachage quotidien compte les visiteurs, un visiteur est donc nouveau chaque jour.',
  recordCities: 'Enregistrer les villes',
  recordCitiesHint: '— désactivé : pays et régions uniquement.',
  keepVisitsFor: 'Conserver les visites pendant',
  retentionKeepsAll:
    'Les visites plus anciennes et leurs événements sont supprimés chaque nuit (30 à 36 500 jours) ; les paiements restent. Vide : toutes les visites sont conservées.',
  retentionFollows: {
    one: 'Les visites plus anciennes et leurs événements sont supprimés chaque nuit (30 à 36 500 jours) ; les paiements restent. Vide : la valeur de ce serveur, {count} jour.',
    other:
      'Les visites plus anciennes et leurs événements sont supprimés chaque nuit (30 à 36 500 jours) ; les paiements restent. Vide : la valeur de ce serveur, {count} jours.',
  },
  days: 'jours',
  umamiWebsiteId: 'ID de site Umami',
  umamiHint:
    'Vous venez d’Umami ? Saisissez l’ID de site qu’Umami affiche pour ce site et faites pointer son script vers ce serveur : ses visites sont comptées ici jusqu’à ce que vous changiez la balise.',
  icon: 'Icône',
  iconHint: 'L’adresse d’une image (https), ou vide pour une lettre.',
  colour: 'Couleur',
  noColour: 'Aucune couleur',
  proxyKey: 'Clé de proxy : ',
  hidden: 'masquée',
  hideKey: 'Masquer la clé',
  showKey: 'Afficher la clé',
  copyKey: 'Copier la clé',
  rotate: 'Renouveler…',
  rotateWarning:
    'Les serveurs qui utilisent la clé actuelle seront refusés jusqu’à ce qu’ils reçoivent la nouvelle.',
  rotateKey: 'Renouveler la clé',
  keepIt: 'La garder',
  ignoreIntro:
    'Ouvrez ce lien une fois dans chaque navigateur que vous utilisez pour votre site : ce navigateur n’envoie alors plus rien à Footfall, sur aucune page, jusqu’à ce que vous ouvriez {link}.',
  ignoreUnmarkLink: 'la même adresse avec =0',
  openInBrowser: 'L’ouvrir dans ce navigateur',
  copyLink: 'Copier le lien',
  allSites: 'Tous les sites',
  allSitesCard: 'Tous les sites ensemble : totaux, part de chaque site, principales sources et pages',
} satisfies Translation<typeof en>;
