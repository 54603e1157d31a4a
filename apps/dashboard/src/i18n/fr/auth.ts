import type { Translation } from '../catalogue.ts';
import type en from '../en/auth.ts';

export default {
  twoStepSignIn: 'Connexion en deux étapes',
  code: 'Code',
  codeHint: 'Les 6 chiffres affichés par votre application d’authentification, ou un code de récupération.',
  signIn: 'Se connecter',
  email: 'E-mail',
  password: 'Mot de passe',
  passwordsDiffer: 'Les deux mots de passe diffèrent.',
  isSetUp: 'Footfall est configuré',
  ownerExists: 'Le premier propriétaire existe déjà.',
  createFirstOwner: 'Créer le premier propriétaire',
  openSetupLink:
    'Ouvrez le lien de configuration affiché par `footfall start` : il contient le jeton de configuration.',
  passwordLength: '10 caractères ou plus.',
  passwordAgain: 'Confirmer le mot de passe',
  createOwner: 'Créer le propriétaire',
  chooseOwnPassword: 'Choisissez votre propre mot de passe',
  replaceGiven:
    'Ce mot de passe vous a été transmis par quelqu’un d’autre. Remplacez-le par un mot de passe que vous êtes seul à connaître.',
  givenPassword: 'Le mot de passe qui vous a été donné',
  newPassword: 'Nouveau mot de passe',
  saveAndContinue: 'Enregistrer et continuer',
  signedInAs: 'Connecté en tant que {email}',
  addSite: 'Ajouter un site',
  backToSites: 'Retour aux sites',
  addTheSite: 'Ajouter le site',
  ssoWith: 'Se connecter avec {name}',
  orPassword: 'ou avec votre mot de passe',
  breakGlass: 'Se connecter avec un mot de passe (propriétaire de secours)',
} satisfies Translation<typeof en>;
