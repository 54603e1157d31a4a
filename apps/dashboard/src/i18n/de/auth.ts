import type { Translation } from '../catalogue.ts';
import type en from '../en/auth.ts';

export default {
  twoStepSignIn: 'Zwei-Faktor-Anmeldung',
  code: 'Code',
  codeHint: 'Die 6 Ziffern, die Ihre Authenticator-App anzeigt, oder ein Wiederherstellungscode.',
  signIn: 'Anmelden',
  email: 'E-Mail',
  password: 'Passwort',
  passwordsDiffer: 'Die beiden Passwörter stimmen nicht überein.',
  isSetUp: 'Footfall ist eingerichtet',
  ownerExists: 'Der erste Inhaber existiert bereits.',
  createFirstOwner: 'Ersten Inhaber anlegen',
  openSetupLink:
    'Öffnen Sie den Einrichtungslink, den `footfall start` ausgegeben hat: Er enthält das Einrichtungstoken.',
  passwordLength: 'Mindestens 10 Zeichen.',
  passwordAgain: 'Passwort wiederholen',
  createOwner: 'Inhaber anlegen',
  chooseOwnPassword: 'Wählen Sie Ihr eigenes Passwort',
  replaceGiven:
    'Sie haben sich mit einem Passwort angemeldet, das auch jemand anderes kennt. Ersetzen Sie es durch eines, das nur Sie kennen.',
  givenPassword: 'Das Passwort, das Sie erhalten haben',
  newPassword: 'Neues Passwort',
  saveAndContinue: 'Speichern und weiter',
  signedInAs: 'Angemeldet als {email}',
  addSite: 'Website hinzufügen',
  backToSites: 'Zurück zu den Websites',
  addTheSite: 'Website hinzufügen',
  ssoWith: 'Mit {name} anmelden',
  orPassword: 'oder mit Ihrem Passwort',
  breakGlass: 'Mit Passwort anmelden (Notfall-Inhaber)',
} satisfies Translation<typeof en>;
