import type { Translation } from '../catalogue.ts';
import type en from '../en/sso.ts';

export default {
  ssoExpired: 'Ese inicio de sesión ya se usó o tardó demasiado. Empiece de nuevo.',
  ssoOtherBrowser: 'Ese inicio de sesión empezó en otro navegador. Empiece de nuevo aquí.',
  ssoProviderRefused:
    'Su servicio de inicio de sesión no le dejó entrar. Empiece de nuevo o pregunte a quien lo gestiona.',
  ssoTokenRefused:
    'La respuesta de su servicio de inicio de sesión no pasó las comprobaciones de Footfall, así que no ha entrado. Avise a quien gestiona Footfall.',
  ssoUnverifiedEmail:
    'Su servicio de inicio de sesión no ha verificado su dirección de correo, así que Footfall no puede saber quién es.',
  ssoNoEmail:
    'Su servicio de inicio de sesión no compartió su dirección de correo, así que Footfall no puede saber quién es.',
  ssoNoAccount: 'Aún no tiene una cuenta aquí. Pida a un propietario que añada su dirección de correo.',
  ssoUnreachable: 'Su servicio de inicio de sesión no respondió. Vuelva a intentarlo en un momento.',
} satisfies Translation<typeof en>;
