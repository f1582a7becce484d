export function greet(name: string): string {
  return `Hello, ${name}!`;
}

export function farewell(name: string): string {
  return `Goodbye, ${name}.`;
}

function shout(message: string): string {
  return message.toUpperCase() + "!";
}

export const loud = (name: string) => shout(greet(name));
