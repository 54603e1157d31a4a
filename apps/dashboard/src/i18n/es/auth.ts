import type { Translation } from '../catalogue.ts';
import type en from '../en/auth.ts';

export default {
  twoStepSignIn: 'Inicio de sesión en dos pasos',
  code: 'Código',
  codeHint: 'Los 6 dígitos que muestra tu app de autenticación, o un código de recuperación.',
  signIn: 'Iniciar sesión',
  email: 'Correo electrónico',
  password: 'Contraseña',
  passwordsDiffer: 'Las dos contraseñas no coinciden.',
  isSetUp: 'Footfall ya está configurado',
  ownerExists: 'El primer propietario ya existe.',
  createFirstOwner: 'Crear el primer propietario',
  openSetupLink:
    'Abre el enlace de configuración que mostró `footfall start`: lleva el token de configuración.',
  passwordLength: '10 caracteres o más.',
  passwordAgain: 'Repite la contraseña',
  createOwner: 'Crear el propietario',
  chooseOwnPassword: 'Elige tu propia contraseña',
  replaceGiven:
    'Has iniciado sesión con una contraseña que otra persona te dio. Cámbiala por una que solo tú conozcas.',
  givenPassword: 'La contraseña que te dieron',
  newPassword: 'Contraseña nueva',
  saveAndContinue: 'Guardar y continuar',
  signedInAs: 'Sesión iniciada como {email}',
  addSite: 'Añadir un sitio',
  backToSites: 'Volver a los sitios',
  addTheSite: 'Añadir el sitio',
  ssoWith: 'Entrar con {name}',
  orPassword: 'o con su contraseña',
  breakGlass: 'Entrar con contraseña (propietario de emergencia)',
} satisfies Translation<typeof en>;
