import type { Translation } from '../catalogue.ts';
import type en from '../en/sso.ts';

export default {
  ssoExpired: 'Cette connexion a déjà servi ou a pris trop de temps. Recommencez.',
  ssoOtherBrowser: 'Cette connexion a commencé dans un autre navigateur. Recommencez ici.',
  ssoProviderRefused:
    'Votre service de connexion ne vous a pas connecté. Recommencez, ou demandez à qui le gère.',
  ssoTokenRefused:
    'La réponse de votre service de connexion n’a pas passé les contrôles de Footfall : vous n’êtes pas connecté. Prévenez qui gère Footfall.',
  ssoUnverifiedEmail:
    'Votre service de connexion n’a pas vérifié votre adresse e-mail : Footfall ne peut pas savoir qui vous êtes.',
  ssoNoEmail:
    'Votre service de connexion n’a pas transmis votre adresse e-mail : Footfall ne peut pas savoir qui vous êtes.',
  ssoNoAccount:
    'Vous n’avez pas encore de compte ici. Demandez à un propriétaire d’ajouter votre adresse e-mail.',
  ssoUnreachable: 'Votre service de connexion n’a pas répondu. Réessayez dans un instant.',
} satisfies Translation<typeof en>;
