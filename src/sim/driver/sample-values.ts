// Word lists the generators draw from, so the data reads like a Benelux/German haulier's.

export interface City {
  readonly name: string;
  readonly postalCode: string;
  readonly country: { readonly name: string; readonly code: string };
  readonly latitude: number;
  readonly longitude: number;
}

const nl = { name: 'Netherlands', code: 'NL' } as const;
const be = { name: 'Belgium', code: 'BE' } as const;
const de = { name: 'Germany', code: 'DE' } as const;

export const cities: readonly City[] = [
  { name: 'Rotterdam', postalCode: '3011', country: nl, latitude: 51.9225, longitude: 4.4792 },
  { name: 'Amsterdam', postalCode: '1012', country: nl, latitude: 52.3676, longitude: 4.9041 },
  { name: 'Utrecht', postalCode: '3511', country: nl, latitude: 52.0907, longitude: 5.1214 },
  { name: 'Eindhoven', postalCode: '5611', country: nl, latitude: 51.4416, longitude: 5.4697 },
  { name: 'Venlo', postalCode: '5911', country: nl, latitude: 51.3704, longitude: 6.1724 },
  { name: 'Zwolle', postalCode: '8011', country: nl, latitude: 52.5168, longitude: 6.083 },
  { name: 'Antwerpen', postalCode: '2000', country: be, latitude: 51.2194, longitude: 4.4025 },
  { name: 'Gent', postalCode: '9000', country: be, latitude: 51.0543, longitude: 3.7174 },
  { name: 'Liège', postalCode: '4000', country: be, latitude: 50.6326, longitude: 5.5797 },
  { name: 'Duisburg', postalCode: '47051', country: de, latitude: 51.4344, longitude: 6.7623 },
  { name: 'Köln', postalCode: '50667', country: de, latitude: 50.9375, longitude: 6.9603 },
  { name: 'Düsseldorf', postalCode: '40213', country: de, latitude: 51.2277, longitude: 6.7735 },
];

export const streets = [
  'Industrieweg',
  'Havenstraat',
  'Marconistraat',
  'Kanaaldijk',
  'Transportweg',
  'Europalaan',
  'Nijverheidsstraat',
  'Logistiekweg',
  'Hafenstraße',
  'Rue de l’Industrie',
] as const;

export const firstNames = [
  'Anna',
  'Bram',
  'Chantal',
  'Dirk',
  'Eva',
  'Femke',
  'Gert',
  'Hans',
  'Ilse',
  'Jan',
  'Karin',
  'Luc',
] as const;
export const lastNames = [
  'de Vries',
  'Janssens',
  'Müller',
  'Bakker',
  'Peeters',
  'Visser',
  'Schmidt',
  'Smit',
  'Maes',
  'Meijer',
] as const;

export const companyWords = [
  'Noord',
  'Delta',
  'Rijn',
  'Maas',
  'Euro',
  'Polder',
  'Benelux',
  'Schelde',
  'Kempen',
  'Veluwe',
] as const;
export const companyKinds = [
  'Foods',
  'Logistics',
  'Bouwmaterialen',
  'Retail',
  'Agri',
  'Packaging',
  'Chemie',
  'Dranken',
] as const;
export const clientCategories = ['retail', 'food', 'chilled', 'adr', 'key-account', 'weekend'] as const;

export const products = [
  { id: 'P-FTL', name: 'Full truckload' },
  { id: 'P-LTL', name: 'Groupage' },
  { id: 'P-EXP', name: 'Express' },
  { id: 'P-CHL', name: 'Chilled distribution' },
] as const;

export const goodDescriptions = [
  'Euro pallet, mixed goods',
  'Roll container, chilled',
  'Block pallet, beverages',
  'Carton, spare parts',
  'Big bag, granulate',
  'Pallet, building materials',
  'Crate, vegetables',
] as const;

export const chatTexts = [
  'Good morning, your first stop moved to 08:30.',
  'Please call the client before arrival.',
  'Dock 4 is free, you can unload there.',
  'Arrived, waiting at the gate.',
  'Client asks to bring back the empty pallets.',
  'Traffic jam on the A15, about 20 minutes late.',
  'Unloading done, heading to the next stop.',
  'Can you take an extra pallet for the Venlo stop?',
  'Ok, understood.',
] as const;

export const instructions = [
  'Report at the reception first.',
  'Use the rear entrance, max height 4 m.',
  'Tail lift required.',
  'Call 15 minutes before arrival.',
  '',
] as const;
