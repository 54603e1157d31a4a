import type { Translation } from '../catalogue.ts';
import type en from '../en/sites.ts';

export default {
  sites: 'Sitios',
  arrange: 'Ordenar',
  addSite: 'Añadir un sitio',
  noSiteShared:
    'Todavía no se ha compartido ningún sitio contigo. Pide a un propietario de este Footfall que comparta uno.',
  waitingFirstVisit: 'Esperando la primera visita',
  trackingStopped: {
    one: 'Seguimiento detenido: ninguna visita desde hace {count} día',
    other: 'Seguimiento detenido: ninguna visita desde hace {count} días',
  },
  noVisitFor: {
    one: 'Ninguna visita desde hace {count} día',
    other: 'Ninguna visita desde hace {count} días',
  },
  visitorsIn30Days: { one: 'visitante en 30 días', other: 'visitantes en 30 días' },
  pinned: 'Fijados',
  otherSites: 'Otros sitios',
  cookieless: 'Sin cookies',
  cookielessTitle:
    'Contado sin cookies: un hash diario identifica a los visitantes, así que nadie es reconocido al día siguiente',
  arrangeSites: 'Ordenar los sitios',
  arrangeIntro:
    'Todos los que inician sesión ven este orden. Los sitios fijados van primero, luego cada grupo.',
  site: 'Sitio',
  group: 'Grupo',
  move: 'Mover',
  pinSite: 'Fijar {domain}',
  groupOf: 'Grupo de {domain}',
  noGroup: 'Sin grupo',
  moveUp: 'Subir {domain}',
  moveDown: 'Bajar {domain}',
  groups: 'Grupos',
  removeGroup: 'Quitar el grupo {name}',
  newGroupName: 'Nombre del nuevo grupo',
  addGroup: 'Añadir el grupo',
  save: 'Guardar',
  cancel: 'Cancelar',
  domain: 'Dominio',
  domainHint: 'La dirección del sitio; puedes pegar una URL. www. es opcional.',
  timeZone: 'Zona horaria',
  timeZoneHint: 'Los días y las horas de los informes la siguen.',
  currency: 'Moneda',
  currencyHint: 'Los ingresos se muestran en ella.',
  cookielessHint:
    '— sin cookie: un hash diario cuenta los visitantes, así que un visitante vuelve a ser nuevo cada día.',
  recordCities: 'Registrar ciudades',
  recordCitiesHint: '— desactivado: solo países y regiones.',
  keepVisitsFor: 'Conservar las visitas durante',
  retentionKeepsAll:
    'Las visitas más antiguas y sus eventos se eliminan cada noche (de 30 a 36 500 días); los pagos se conservan. Si lo dejas vacío, se conservan todas las visitas.',
  retentionFollows: {
    one: 'Las visitas más antiguas y sus eventos se eliminan cada noche (de 30 a 36 500 días); los pagos se conservan. Si lo dejas vacío, se usa el valor de este servidor: {count} día.',
    other:
      'Las visitas más antiguas y sus eventos se eliminan cada noche (de 30 a 36 500 días); los pagos se conservan. Si lo dejas vacío, se usa el valor de este servidor: {count} días.',
  },
  days: 'días',
  umamiWebsiteId: 'ID de sitio web de Umami',
  umamiHint:
    '¿Vienes de Umami? Introduce el ID de sitio web que Umami muestra para este sitio y apunta su script a este servidor: sus visitas se cuentan aquí hasta que cambies la etiqueta.',
  icon: 'Icono',
  iconHint: 'La dirección de una imagen (https), o vacío para una letra.',
  colour: 'Color',
  noColour: 'Sin color',
  proxyKey: 'Clave de proxy: ',
  hidden: 'oculta',
  hideKey: 'Ocultar la clave',
  showKey: 'Mostrar la clave',
  copyKey: 'Copiar la clave',
  rotate: 'Renovar…',
  rotateWarning: 'Los servidores que usan la clave actual serán rechazados hasta que reciban la nueva.',
  rotateKey: 'Renovar la clave',
  keepIt: 'Conservarla',
  ignoreIntro:
    'Abre este enlace una vez en cada navegador que uses para tu sitio: ese navegador ya no envía nada a Footfall, en ninguna página, hasta que abras {link}.',
  ignoreUnmarkLink: 'la misma dirección con =0',
  openInBrowser: 'Abrirlo en este navegador',
  copyLink: 'Copiar el enlace',
  allSites: 'Todos los sitios',
  allSitesCard: 'Todos los sitios juntos: totales, la parte de cada sitio, fuentes y páginas principales',
} satisfies Translation<typeof en>;
