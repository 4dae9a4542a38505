var j=globalThis,q=j.ShadowRoot&&(j.ShadyCSS===void 0||j.ShadyCSS.nativeShadow)&&"adoptedStyleSheets"in Document.prototype&&"replace"in CSSStyleSheet.prototype,tt=Symbol(),yt=new WeakMap,N=class{constructor(t,e,s){if(this._$cssResult$=!0,s!==tt)throw Error("CSSResult is not constructable. Use `unsafeCSS` or `css` instead.");this.cssText=t,this.t=e}get styleSheet(){let t=this.o,e=this.t;if(q&&t===void 0){let s=e!==void 0&&e.length===1;s&&(t=yt.get(e)),t===void 0&&((this.o=t=new CSSStyleSheet).replaceSync(this.cssText),s&&yt.set(e,t))}return t}toString(){return this.cssText}},z=r=>new N(typeof r=="string"?r:r+"",void 0,tt),m=(r,...t)=>{let e=r.length===1?r[0]:t.reduce((s,i,n)=>s+(o=>{if(o._$cssResult$===!0)return o.cssText;if(typeof o=="number")return o;throw Error("Value passed to 'css' function must be a 'css' function result: "+o+". Use 'unsafeCSS' to pass non-literal values, but take care to ensure page security.")})(i)+r[n+1],r[0]);return new N(e,r,tt)},_t=(r,t)=>{if(q)r.adoptedStyleSheets=t.map(e=>e instanceof CSSStyleSheet?e:e.styleSheet);else for(let e of t){let s=document.createElement("style"),i=j.litNonce;i!==void 0&&s.setAttribute("nonce",i),s.textContent=e.cssText,r.appendChild(s)}},et=q?r=>r:r=>r instanceof CSSStyleSheet?(t=>{let e="";for(let s of t.cssRules)e+=s.cssText;return z(e)})(r):r;var{is:oe,defineProperty:ae,getOwnPropertyDescriptor:le,getOwnPropertyNames:ce,getOwnPropertySymbols:he,getPrototypeOf:de}=Object,B=globalThis,bt=B.trustedTypes,pe=bt?bt.emptyScript:"",ue=B.reactiveElementPolyfillSupport,P=(r,t)=>r,st={toAttribute(r,t){switch(t){case Boolean:r=r?pe:null;break;case Object:case Array:r=r==null?r:JSON.stringify(r)}return r},fromAttribute(r,t){let e=r;switch(t){case Boolean:e=r!==null;break;case Number:e=r===null?null:Number(r);break;case Object:case Array:try{e=JSON.parse(r)}catch{e=null}}return e}},wt=(r,t)=>!oe(r,t),vt={attribute:!0,type:String,converter:st,reflect:!1,useDefault:!1,hasChanged:wt};Symbol.metadata??=Symbol("metadata"),B.litPropertyMetadata??=new WeakMap;var _=class extends HTMLElement{static addInitializer(t){this._$Ei(),(this.l??=[]).push(t)}static get observedAttributes(){return this.finalize(),this._$Eh&&[...this._$Eh.keys()]}static createProperty(t,e=vt){if(e.state&&(e.attribute=!1),this._$Ei(),this.prototype.hasOwnProperty(t)&&((e=Object.create(e)).wrapped=!0),this.elementProperties.set(t,e),!e.noAccessor){let s=Symbol(),i=this.getPropertyDescriptor(t,s,e);i!==void 0&&ae(this.prototype,t,i)}}static getPropertyDescriptor(t,e,s){let{get:i,set:n}=le(this.prototype,t)??{get(){return this[e]},set(o){this[e]=o}};return{get:i,set(o){let h=i?.call(this);n?.call(this,o),this.requestUpdate(t,h,s)},configurable:!0,enumerable:!0}}static getPropertyOptions(t){return this.elementProperties.get(t)??vt}static _$Ei(){if(this.hasOwnProperty(P("elementProperties")))return;let t=de(this);t.finalize(),t.l!==void 0&&(this.l=[...t.l]),this.elementProperties=new Map(t.elementProperties)}static finalize(){if(this.hasOwnProperty(P("finalized")))return;if(this.finalized=!0,this._$Ei(),this.hasOwnProperty(P("properties"))){let e=this.properties,s=[...ce(e),...he(e)];for(let i of s)this.createProperty(i,e[i])}let t=this[Symbol.metadata];if(t!==null){let e=litPropertyMetadata.get(t);if(e!==void 0)for(let[s,i]of e)this.elementProperties.set(s,i)}this._$Eh=new Map;for(let[e,s]of this.elementProperties){let i=this._$Eu(e,s);i!==void 0&&this._$Eh.set(i,e)}this.elementStyles=this.finalizeStyles(this.styles)}static finalizeStyles(t){let e=[];if(Array.isArray(t)){let s=new Set(t.flat(1/0).reverse());for(let i of s)e.unshift(et(i))}else t!==void 0&&e.push(et(t));return e}static _$Eu(t,e){let s=e.attribute;return s===!1?void 0:typeof s=="string"?s:typeof t=="string"?t.toLowerCase():void 0}constructor(){super(),this._$Ep=void 0,this.isUpdatePending=!1,this.hasUpdated=!1,this._$Em=null,this._$Ev()}_$Ev(){this._$ES=new Promise(t=>this.enableUpdating=t),this._$AL=new Map,this._$E_(),this.requestUpdate(),this.constructor.l?.forEach(t=>t(this))}addController(t){(this._$EO??=new Set).add(t),this.renderRoot!==void 0&&this.isConnected&&t.hostConnected?.()}removeController(t){this._$EO?.delete(t)}_$E_(){let t=new Map,e=this.constructor.elementProperties;for(let s of e.keys())this.hasOwnProperty(s)&&(t.set(s,this[s]),delete this[s]);t.size>0&&(this._$Ep=t)}createRenderRoot(){let t=this.shadowRoot??this.attachShadow(this.constructor.shadowRootOptions);return _t(t,this.constructor.elementStyles),t}connectedCallback(){this.renderRoot??=this.createRenderRoot(),this.enableUpdating(!0),this._$EO?.forEach(t=>t.hostConnected?.())}enableUpdating(t){}disconnectedCallback(){this._$EO?.forEach(t=>t.hostDisconnected?.())}attributeChangedCallback(t,e,s){this._$AK(t,s)}_$ET(t,e){let s=this.constructor.elementProperties.get(t),i=this.constructor._$Eu(t,s);if(i!==void 0&&s.reflect===!0){let n=(s.converter?.toAttribute!==void 0?s.converter:st).toAttribute(e,s.type);this._$Em=t,n==null?this.removeAttribute(i):this.setAttribute(i,n),this._$Em=null}}_$AK(t,e){let s=this.constructor,i=s._$Eh.get(t);if(i!==void 0&&this._$Em!==i){let n=s.getPropertyOptions(i),o=typeof n.converter=="function"?{fromAttribute:n.converter}:n.converter?.fromAttribute!==void 0?n.converter:st;this._$Em=i;let h=o.fromAttribute(e,n.type);this[i]=h??this._$Ej?.get(i)??h,this._$Em=null}}requestUpdate(t,e,s,i=!1,n){if(t!==void 0){let o=this.constructor;if(i===!1&&(n=this[t]),s??=o.getPropertyOptions(t),!((s.hasChanged??wt)(n,e)||s.useDefault&&s.reflect&&n===this._$Ej?.get(t)&&!this.hasAttribute(o._$Eu(t,s))))return;this.C(t,e,s)}this.isUpdatePending===!1&&(this._$ES=this._$EP())}C(t,e,{useDefault:s,reflect:i,wrapped:n},o){s&&!(this._$Ej??=new Map).has(t)&&(this._$Ej.set(t,o??e??this[t]),n!==!0||o!==void 0)||(this._$AL.has(t)||(this.hasUpdated||s||(e=void 0),this._$AL.set(t,e)),i===!0&&this._$Em!==t&&(this._$Eq??=new Set).add(t))}async _$EP(){this.isUpdatePending=!0;try{await this._$ES}catch(e){Promise.reject(e)}let t=this.scheduleUpdate();return t!=null&&await t,!this.isUpdatePending}scheduleUpdate(){return this.performUpdate()}performUpdate(){if(!this.isUpdatePending)return;if(!this.hasUpdated){if(this.renderRoot??=this.createRenderRoot(),this._$Ep){for(let[i,n]of this._$Ep)this[i]=n;this._$Ep=void 0}let s=this.constructor.elementProperties;if(s.size>0)for(let[i,n]of s){let{wrapped:o}=n,h=this[i];o!==!0||this._$AL.has(i)||h===void 0||this.C(i,void 0,n,h)}}let t=!1,e=this._$AL;try{t=this.shouldUpdate(e),t?(this.willUpdate(e),this._$EO?.forEach(s=>s.hostUpdate?.()),this.update(e)):this._$EM()}catch(s){throw t=!1,this._$EM(),s}t&&this._$AE(e)}willUpdate(t){}_$AE(t){this._$EO?.forEach(e=>e.hostUpdated?.()),this.hasUpdated||(this.hasUpdated=!0,this.firstUpdated(t)),this.updated(t)}_$EM(){this._$AL=new Map,this.isUpdatePending=!1}get updateComplete(){return this.getUpdateComplete()}getUpdateComplete(){return this._$ES}shouldUpdate(t){return!0}update(t){this._$Eq&&=this._$Eq.forEach(e=>this._$ET(e,this[e])),this._$EM()}updated(t){}firstUpdated(t){}};_.elementStyles=[],_.shadowRootOptions={mode:"open"},_[P("elementProperties")]=new Map,_[P("finalized")]=new Map,ue?.({ReactiveElement:_}),(B.reactiveElementVersions??=[]).push("2.1.2");var ct=globalThis,St=r=>r,W=ct.trustedTypes,xt=W?W.createPolicy("lit-html",{createHTML:r=>r}):void 0,Ot="$lit$",S=`lit$${Math.random().toFixed(9).slice(2)}$`,Ut="?"+S,fe=`<${Ut}>`,T=document,H=()=>T.createComment(""),M=r=>r===null||typeof r!="object"&&typeof r!="function",ht=Array.isArray,me=r=>ht(r)||typeof r?.[Symbol.iterator]=="function",rt=`[ 	
\f\r]`,R=/<(?:(!--|\/[^a-zA-Z])|(\/?[a-zA-Z][^>\s]*)|(\/?$))/g,At=/-->/g,Et=/>/g,E=RegExp(`>|${rt}(?:([^\\s"'>=/]+)(${rt}*=${rt}*(?:[^ 	
\f\r"'\`<>=]|("|')|))|$)`,"g"),kt=/'/g,Tt=/"/g,Nt=/^(?:script|style|textarea|title)$/i,dt=r=>(t,...e)=>({_$litType$:r,strings:t,values:e}),l=dt(1),We=dt(2),Ke=dt(3),C=Symbol.for("lit-noChange"),f=Symbol.for("lit-nothing"),Ct=new WeakMap,k=T.createTreeWalker(T,129);function Pt(r,t){if(!ht(r)||!r.hasOwnProperty("raw"))throw Error("invalid template strings array");return xt!==void 0?xt.createHTML(t):t}var ge=(r,t)=>{let e=r.length-1,s=[],i,n=t===2?"<svg>":t===3?"<math>":"",o=R;for(let h=0;h<e;h++){let a=r[h],d,u,p=-1,y=0;for(;y<a.length&&(o.lastIndex=y,u=o.exec(a),u!==null);)y=o.lastIndex,o===R?u[1]==="!--"?o=At:u[1]!==void 0?o=Et:u[2]!==void 0?(Nt.test(u[2])&&(i=RegExp("</"+u[2],"g")),o=E):u[3]!==void 0&&(o=E):o===E?u[0]===">"?(o=i??R,p=-1):u[1]===void 0?p=-2:(p=o.lastIndex-u[2].length,d=u[1],o=u[3]===void 0?E:u[3]==='"'?Tt:kt):o===Tt||o===kt?o=E:o===At||o===Et?o=R:(o=E,i=void 0);let w=o===E&&r[h+1].startsWith("/>")?" ":"";n+=o===R?a+fe:p>=0?(s.push(d),a.slice(0,p)+Ot+a.slice(p)+S+w):a+S+(p===-2?h:w)}return[Pt(r,n+(r[e]||"<?>")+(t===2?"</svg>":t===3?"</math>":"")),s]},L=class r{constructor({strings:t,_$litType$:e},s){let i;this.parts=[];let n=0,o=0,h=t.length-1,a=this.parts,[d,u]=ge(t,e);if(this.el=r.createElement(d,s),k.currentNode=this.el.content,e===2||e===3){let p=this.el.content.firstChild;p.replaceWith(...p.childNodes)}for(;(i=k.nextNode())!==null&&a.length<h;){if(i.nodeType===1){if(i.hasAttributes())for(let p of i.getAttributeNames())if(p.endsWith(Ot)){let y=u[o++],w=i.getAttribute(p).split(S),I=/([.?@])?(.*)/.exec(y);a.push({type:1,index:n,name:I[2],strings:w,ctor:I[1]==="."?nt:I[1]==="?"?ot:I[1]==="@"?at:U}),i.removeAttribute(p)}else p.startsWith(S)&&(a.push({type:6,index:n}),i.removeAttribute(p));if(Nt.test(i.tagName)){let p=i.textContent.split(S),y=p.length-1;if(y>0){i.textContent=W?W.emptyScript:"";for(let w=0;w<y;w++)i.append(p[w],H()),k.nextNode(),a.push({type:2,index:++n});i.append(p[y],H())}}}else if(i.nodeType===8)if(i.data===Ut)a.push({type:2,index:n});else{let p=-1;for(;(p=i.data.indexOf(S,p+1))!==-1;)a.push({type:7,index:n}),p+=S.length-1}n++}}static createElement(t,e){let s=T.createElement("template");return s.innerHTML=t,s}};function O(r,t,e=r,s){if(t===C)return t;let i=s!==void 0?e._$Co?.[s]:e._$Cl,n=M(t)?void 0:t._$litDirective$;return i?.constructor!==n&&(i?._$AO?.(!1),n===void 0?i=void 0:(i=new n(r),i._$AT(r,e,s)),s!==void 0?(e._$Co??=[])[s]=i:e._$Cl=i),i!==void 0&&(t=O(r,i._$AS(r,t.values),i,s)),t}var it=class{constructor(t,e){this._$AV=[],this._$AN=void 0,this._$AD=t,this._$AM=e}get parentNode(){return this._$AM.parentNode}get _$AU(){return this._$AM._$AU}u(t){let{el:{content:e},parts:s}=this._$AD,i=(t?.creationScope??T).importNode(e,!0);k.currentNode=i;let n=k.nextNode(),o=0,h=0,a=s[0];for(;a!==void 0;){if(o===a.index){let d;a.type===2?d=new D(n,n.nextSibling,this,t):a.type===1?d=new a.ctor(n,a.name,a.strings,this,t):a.type===6&&(d=new lt(n,this,t)),this._$AV.push(d),a=s[++h]}o!==a?.index&&(n=k.nextNode(),o++)}return k.currentNode=T,i}p(t){let e=0;for(let s of this._$AV)s!==void 0&&(s.strings!==void 0?(s._$AI(t,s,e),e+=s.strings.length-2):s._$AI(t[e])),e++}},D=class r{get _$AU(){return this._$AM?._$AU??this._$Cv}constructor(t,e,s,i){this.type=2,this._$AH=f,this._$AN=void 0,this._$AA=t,this._$AB=e,this._$AM=s,this.options=i,this._$Cv=i?.isConnected??!0}get parentNode(){let t=this._$AA.parentNode,e=this._$AM;return e!==void 0&&t?.nodeType===11&&(t=e.parentNode),t}get startNode(){return this._$AA}get endNode(){return this._$AB}_$AI(t,e=this){t=O(this,t,e),M(t)?t===f||t==null||t===""?(this._$AH!==f&&this._$AR(),this._$AH=f):t!==this._$AH&&t!==C&&this._(t):t._$litType$!==void 0?this.$(t):t.nodeType!==void 0?this.T(t):me(t)?this.k(t):this._(t)}O(t){return this._$AA.parentNode.insertBefore(t,this._$AB)}T(t){this._$AH!==t&&(this._$AR(),this._$AH=this.O(t))}_(t){this._$AH!==f&&M(this._$AH)?this._$AA.nextSibling.data=t:this.T(T.createTextNode(t)),this._$AH=t}$(t){let{values:e,_$litType$:s}=t,i=typeof s=="number"?this._$AC(t):(s.el===void 0&&(s.el=L.createElement(Pt(s.h,s.h[0]),this.options)),s);if(this._$AH?._$AD===i)this._$AH.p(e);else{let n=new it(i,this),o=n.u(this.options);n.p(e),this.T(o),this._$AH=n}}_$AC(t){let e=Ct.get(t.strings);return e===void 0&&Ct.set(t.strings,e=new L(t)),e}k(t){ht(this._$AH)||(this._$AH=[],this._$AR());let e=this._$AH,s,i=0;for(let n of t)i===e.length?e.push(s=new r(this.O(H()),this.O(H()),this,this.options)):s=e[i],s._$AI(n),i++;i<e.length&&(this._$AR(s&&s._$AB.nextSibling,i),e.length=i)}_$AR(t=this._$AA.nextSibling,e){for(this._$AP?.(!1,!0,e);t!==this._$AB;){let s=St(t).nextSibling;St(t).remove(),t=s}}setConnected(t){this._$AM===void 0&&(this._$Cv=t,this._$AP?.(t))}},U=class{get tagName(){return this.element.tagName}get _$AU(){return this._$AM._$AU}constructor(t,e,s,i,n){this.type=1,this._$AH=f,this._$AN=void 0,this.element=t,this.name=e,this._$AM=i,this.options=n,s.length>2||s[0]!==""||s[1]!==""?(this._$AH=Array(s.length-1).fill(new String),this.strings=s):this._$AH=f}_$AI(t,e=this,s,i){let n=this.strings,o=!1;if(n===void 0)t=O(this,t,e,0),o=!M(t)||t!==this._$AH&&t!==C,o&&(this._$AH=t);else{let h=t,a,d;for(t=n[0],a=0;a<n.length-1;a++)d=O(this,h[s+a],e,a),d===C&&(d=this._$AH[a]),o||=!M(d)||d!==this._$AH[a],d===f?t=f:t!==f&&(t+=(d??"")+n[a+1]),this._$AH[a]=d}o&&!i&&this.j(t)}j(t){t===f?this.element.removeAttribute(this.name):this.element.setAttribute(this.name,t??"")}},nt=class extends U{constructor(){super(...arguments),this.type=3}j(t){this.element[this.name]=t===f?void 0:t}},ot=class extends U{constructor(){super(...arguments),this.type=4}j(t){this.element.toggleAttribute(this.name,!!t&&t!==f)}},at=class extends U{constructor(t,e,s,i,n){super(t,e,s,i,n),this.type=5}_$AI(t,e=this){if((t=O(this,t,e,0)??f)===C)return;let s=this._$AH,i=t===f&&s!==f||t.capture!==s.capture||t.once!==s.once||t.passive!==s.passive,n=t!==f&&(s===f||i);i&&this.element.removeEventListener(this.name,this,s),n&&this.element.addEventListener(this.name,this,t),this._$AH=t}handleEvent(t){typeof this._$AH=="function"?this._$AH.call(this.options?.host??this.element,t):this._$AH.handleEvent(t)}},lt=class{constructor(t,e,s){this.element=t,this.type=6,this._$AN=void 0,this._$AM=e,this.options=s}get _$AU(){return this._$AM._$AU}_$AI(t){O(this,t)}};var $e=ct.litHtmlPolyfillSupport;$e?.(L,D),(ct.litHtmlVersions??=[]).push("3.3.3");var Rt=(r,t,e)=>{let s=e?.renderBefore??t,i=s._$litPart$;if(i===void 0){let n=e?.renderBefore??null;s._$litPart$=i=new D(t.insertBefore(H(),n),n,void 0,e??{})}return i._$AI(r),i};var pt=globalThis,x=class extends _{constructor(){super(...arguments),this.renderOptions={host:this},this._$Do=void 0}createRenderRoot(){let t=super.createRenderRoot();return this.renderOptions.renderBefore??=t.firstChild,t}update(t){let e=this.render();this.hasUpdated||(this.renderOptions.isConnected=this.isConnected),super.update(t),this._$Do=Rt(e,this.renderRoot,this.renderOptions)}connectedCallback(){super.connectedCallback(),this._$Do?.setConnected(!0)}disconnectedCallback(){super.disconnectedCallback(),this._$Do?.setConnected(!1)}render(){return C}};x._$litElement$=!0,x.finalized=!0,pt.litElementHydrateSupport?.({LitElement:x});var ye=pt.litElementPolyfillSupport;ye?.({LitElement:x});(pt.litElementVersions??=[]).push("4.2.2");var ut=r=>r??f;function b(r,t){try{return globalThis[r]?.getItem(t)??null}catch{return null}}function v(r,t,e){try{globalThis[r]?.setItem(t,e)}catch{}}var Ht="Stalwart-Session",Mt="stalwart-session",_e="Stalwart-Stream-Ticket",A=class extends Error{constructor(t,e){super(e?.message||`HTTP ${t}`),this.status=t,this.code=e?.error??"",this.body=e}},K=class{constructor(t,e){this.base=String(t??"").replace(/\/+$/,""),this.fetcher=e,this.tickets=new Map}url(t,e=""){return`${this.base}/threads/${encodeURIComponent(t)}${e}`}ticket(t){return this.tickets.get(t)??""}send(t,e){return this.request("POST",t,"/messages",{text:e})}interrupts(t){return this.request("GET",t,"/interrupts")}resume(t,e){return this.request("POST",t,"/resume",e)}feedback(t,e,s){return this.request("POST",t,"/feedback",{message:e,thumb:s})}async request(t,e,s,i){let n={Accept:"application/json"},o=b("sessionStorage",Mt);o&&(n[Ht]=o),i!==void 0&&(n["Content-Type"]="application/json");let h=await this.fetcher.call(globalThis,this.url(e,s),{method:t,headers:n,body:i===void 0?void 0:JSON.stringify(i),credentials:"same-origin"}),a=h.headers?.get(Ht);a&&v("sessionStorage",Mt,a);let d=h.headers?.get(_e);d&&this.tickets.set(e,d);let u=be(await h.text());if(!h.ok)throw new A(h.status,u);return u}};function be(r){try{return r?JSON.parse(r):null}catch{return null}}var Lt=Object.freeze({conversation:"Conversation",placeholder:"Write a message",send:"Send",sending:"Sending\u2026",waiting:"Waiting for your decision",confirmTitle:"Confirm {tool}?",argumentsTitle:"What it will use",origin_typed:"you typed it",origin_reply:"you answered it",origin_context:"from your account",origin_computed:"calculated",origin_model:"the assistant wrote it",origin_result:"from an earlier step",origin_agent:"from another assistant",reasonsTitle:"Why this needs you",irreversible:"Nothing can undo this step once it runs.",approve:"Approve",skip:"Skip this step",cancelAll:"Cancel everything",refused:"Not done",rule:"Rule",showRule:"Which rule?",rollbackTitle:"Undoing what this run did",undone:"Undone",notUndoable:"Could not be undone",stuck:"Undoing {tool} failed. What should happen?",retry:"Try again",doneByHand:"I undid it myself",abandon:"Leave it",unknownTitle:"Did {tool} take effect?",happened:"Yes, it happened",didNotHappen:"No, it did not",delegateTitle:"I couldn't work that out. Shall I pass it to the assistant?",delegateApprove:"Yes, pass it on",decline:"No",reconnecting:"Reconnecting\u2026",traceTitle:"What happened",step:"Step {step}",error:"Something went wrong: {message}",thumbUp:"Helpful",thumbDown:"Not helpful",thumbsNotice:"A rated message is kept to improve the assistant, and nothing else of the conversation.",sources:"Sources"}),V={...Lt},ft=new Set;function ve(r){for(let[t,e]of Object.entries(r??{})){if(typeof e!="string")throw new TypeError(`setStrings: the string for "${t}" is not a string`);V[t]=e}for(let t of ft)t.requestUpdate()}function Dt(r,t={}){return r.replace(/\{(\w+)\}/g,(e,s)=>t[s]==null?e:String(t[s]))}function c(r,t){return Dt(Object.hasOwn(V,r)?V[r]:r,t)}var Y=class{constructor(t){this.host=t,t.addController(this)}hostConnected(){ft.add(this.host)}hostDisconnected(){ft.delete(this.host)}};var g=class extends x{static get properties(){return{theme:{type:String,reflect:!0}}}constructor(){super(),new Y(this)}};var we=["turn","step","pause","answer","run","rollback","recovered"],It=1e3,Se=3e4,xe=2,jt=r=>`stalwart-last-event-id:${r}`,F=class{constructor(t){this.options=t,this.delay=It,this.source=null,this.timer=void 0,this.failures=0,this.stopped=!1}get last(){return b("sessionStorage",jt(this.options.thread))??""}start(){let{url:t,open:e}=this.options,s=this.options.ticket(),i=this.last,n=new URLSearchParams;s&&n.set("ticket",s),i&&n.set("last_event_id",i);let o=n.toString(),h=e(o?`${t}?${o}`:t);this.source=h,h.addEventListener("open",()=>this.opened()),h.addEventListener("error",()=>this.failed(h));for(let a of we)h.addEventListener(a,d=>this.received(a,d))}stop(){this.stopped=!0,clearTimeout(this.timer),this.source?.close(),this.source=null}opened(){this.delay=It,this.failures=0,this.options.onReconnecting(!1),this.options.onOpen()}failed(t){this.stopped||t!==this.source||(this.failures+=1,t.readyState===xe?(t.close(),this.options.onReconnecting(!0),this.retry()):this.failures>1&&this.options.onReconnecting(!0))}retry(){this.timer=setTimeout(async()=>{try{await this.options.renew()}catch{this.stopped||this.retry();return}this.stopped||this.start()},this.delay),this.delay=Math.min(this.delay*2,Se)}received(t,e){let s=e.lastEventId??"",i=this.last;if(/^\d+$/.test(s)&&/^\d+$/.test(i)&&Number(s)<=Number(i))return;s&&v("sessionStorage",jt(this.options.thread),s);let n=null;try{n=JSON.parse(e.data)}catch{return}this.options.onEvent(t,n,s)}};var Ae=Object.freeze({"--stalwart-bg":"#ffffff","--stalwart-fg":"#1a1a1a","--stalwart-muted":"#595959","--stalwart-line":"#d0d0d0","--stalwart-accent":"#0b57d0","--stalwart-accent-fg":"#ffffff","--stalwart-warn":"#8a4b00","--stalwart-bad":"#b3261e","--stalwart-radius":"8px","--stalwart-gap":"12px","--stalwart-font":"system-ui, sans-serif"}),qt=Object.freeze({"--stalwart-bg":"#121212","--stalwart-fg":"#f1f1f1","--stalwart-muted":"#bdbdbd","--stalwart-line":"#3c3c3c","--stalwart-accent":"#8ab4f8","--stalwart-accent-fg":"#0b0b0b","--stalwart-warn":"#ffb74d","--stalwart-bad":"#f28b82","--stalwart-radius":"8px","--stalwart-gap":"12px","--stalwart-font":"system-ui, sans-serif"});function mt(r,t){let e=Object.entries(r).map(([s,i])=>`${s.replace("--stalwart-","--_")}: var(${s}, ${i});`);return`color-scheme: ${t}; ${e.join(" ")}`}var zt=`
:host { ${mt(Ae,"light")} }
@media (prefers-color-scheme: dark) { :host(:not([theme="light"])) { ${mt(qt,"dark")} } }
:host([theme="dark"]) { ${mt(qt,"dark")} }
`;var $=[z(zt),m`
    :host {
      display: block;
      box-sizing: border-box;
      color: var(--_fg);
      background: var(--_bg);
      font-family: var(--_font);
      line-height: 1.4;
    }
    :host([hidden]) {
      display: none;
    }
    *,
    *::before,
    *::after {
      box-sizing: inherit;
    }
    [hidden] {
      display: none !important;
    }
    h2,
    h3 {
      margin: 0 0 calc(var(--_gap) / 2);
      font-size: 1em;
      font-weight: 600;
    }
    p,
    ul,
    ol,
    dl {
      margin: 0 0 calc(var(--_gap) / 2);
    }
    ul,
    ol {
      padding-inline-start: calc(var(--_gap) * 1.5);
    }
    button {
      font: inherit;
      color: var(--_accent-fg);
      background: var(--_accent);
      border: 1px solid var(--_accent);
      border-radius: var(--_radius);
      padding: calc(var(--_gap) / 3) var(--_gap);
      cursor: pointer;
    }
    button.quiet {
      color: var(--_accent);
      background: var(--_bg);
    }
    button[aria-pressed='true'] {
      color: var(--_accent-fg);
      background: var(--_accent);
    }
    button:disabled {
      cursor: default;
      opacity: 0.6;
    }
    input,
    textarea {
      font: inherit;
      color: var(--_fg);
      background: var(--_bg);
      border: 1px solid var(--_muted);
      border-radius: var(--_radius);
      padding: calc(var(--_gap) / 2);
    }
    :focus-visible {
      outline: 2px solid var(--_accent);
      outline-offset: 2px;
    }
    .muted {
      color: var(--_muted);
    }
    .label {
      font-weight: 600;
    }
  `];var Bt=[$,m`
    :host {
      display: flex;
      flex-direction: column;
      gap: var(--_gap);
      padding: var(--_gap);
    }
    [part='log'] {
      flex: 1 1 auto;
      min-height: 0;
      overflow-y: auto;
      display: flex;
      flex-direction: column;
      gap: var(--_gap);
    }
    .turn,
    .reply {
      max-width: 85%;
      padding: calc(var(--_gap) / 2) var(--_gap);
      border-radius: var(--_radius);
      border: 1px solid var(--_line);
    }
    .turn {
      align-self: flex-end;
      border-color: var(--_accent);
    }
    .reply {
      align-self: flex-start;
    }
    .text {
      margin: 0;
      white-space: pre-wrap;
      overflow-wrap: anywhere;
    }
    [part='thumbs'] {
      display: flex;
      gap: calc(var(--_gap) / 2);
      margin-top: calc(var(--_gap) / 2);
    }
    [part='status'].bad {
      color: var(--_bad);
    }
    [part='composer'] {
      display: flex;
      gap: calc(var(--_gap) / 2);
      align-items: flex-end;
    }
    textarea {
      flex: 1 1 auto;
      resize: vertical;
    }
    [part='thumbs-notice'] {
      margin: 0;
    }
    summary {
      cursor: pointer;
      color: var(--_accent);
    }
  `];var Wt="stalwart-thread",Kt=200,Ee=Object.fromEntries(["entries","waiting","trace","text","sending","deciding","reconnecting","error"].map(r=>[r,{state:!0}])),ke=new Set(["pause","answer","run","rollback","recovered"]),J=class extends g{static get styles(){return Bt}static get properties(){return{base:{type:String},thread:{type:String},thumbs:{type:Boolean},eventSource:{attribute:!1},fetcher:{attribute:!1},...Ee}}constructor(){super(),this.base="",this.thread="",this.thumbs=!1,this.eventSource=t=>new EventSource(t),this.fetcher=globalThis.fetch,Object.assign(this,{entries:[],waiting:[],trace:[],text:"",sending:!1,deciding:0,reconnecting:!1,error:""}),this.link=null,this.addEventListener("stalwart-decision",t=>this.decide(t))}connectedCallback(){super.connectedCallback(),this.hasUpdated&&this.connect()}disconnectedCallback(){super.disconnectedCallback(),this.disconnect()}willUpdate(t){["base","thread","eventSource","fetcher"].some(e=>t.has(e))&&this.connect()}updated(t){(t.has("entries")||t.has("trace"))&&this.keepView(),(t.has("entries")||t.has("waiting"))&&this.scrollLog()}render(){let t=ut(this.theme||void 0),e=this.sources();return l`<slot name="header"></slot>
      <div part="log" role="log" aria-live="polite" aria-label=${c("conversation")} tabindex="0">
        ${this.entries.map(s=>this.renderEntry(s,t))}
        ${this.waiting.map(s=>l`<stalwart-confirm .interrupt=${s} theme=${t}></stalwart-confirm>`)}
      </div>
      <section part="citations" aria-label=${c("sources")} ?hidden=${!e.length}>
        <ul part="sources">
          ${e.map(s=>l`<li>${Te(s)}</li>`)}
        </ul>
      </section>
      <details part="steps">
        <summary>${c("traceTitle")}</summary>
        <stalwart-trace .events=${this.trace} theme=${t}></stalwart-trace>
      </details>
      <div part="status" role="status" class=${this.error?"bad":""}>${this.statusText()}</div>
      <form part="composer" @submit=${this.submit}>
        <textarea
          name="text"
          rows="2"
          aria-label=${c("placeholder")}
          placeholder=${c("placeholder")}
          .value=${this.text}
          ?readonly=${this.sending}
          @input=${this.typed}
          @keydown=${this.keydown}
        ></textarea>
        <button type="submit" ?disabled=${this.sending}>${c("send")}</button>
      </form>
      <p part="thumbs-notice" class="muted" ?hidden=${!this.thumbs}>${c("thumbsNotice")}</p>
      <slot name="footer"></slot>`}renderEntry(t,e){switch(t.kind){case"turn":return l`<div class="entry turn" data-entry=${t.n} tabindex="-1"><p class="text">${t.text}</p></div>`;case"reply":return l`<div class="entry reply" data-entry=${t.n} data-id=${ut(t.id)} tabindex="-1">
          <p class="text">${t.text}</p>
          ${this.thumbs&&t.id?this.renderThumbs(t):""}
        </div>`;case"refusal":return l`<stalwart-decision
          class="entry"
          data-entry=${t.n}
          tabindex="-1"
          rule=${t.rule??""}
          sentence=${t.sentence??""}
          theme=${e}
        ></stalwart-decision>`;default:return l`<stalwart-rollback class="entry" data-entry=${t.n} tabindex="-1" .report=${t.report} theme=${e}></stalwart-rollback>`}}renderThumbs(t){return l`<div part="thumbs">
      <button type="button" class="quiet" data-thumb="up" aria-pressed=${t.thumb==="up"?"true":"false"} @click=${()=>this.rate(t,"up")}>${c("thumbUp")}</button>
      <button type="button" class="quiet" data-thumb="down" aria-pressed=${t.thumb==="down"?"true":"false"} @click=${()=>this.rate(t,"down")}>${c("thumbDown")}</button>
    </div>`}statusText(){return this.error?c("error",{message:this.error}):this.sending||this.deciding?c("sending"):this.reconnecting?c("reconnecting"):this.waiting.length?c("waiting"):""}sources(){let t=[...this.entries].reverse().find(e=>e.kind==="reply");return Array.isArray(t?.sources)?t.sources:[]}connect(){if(this.disconnect(),!this.isConnected)return;let t=this.thread||Oe(),e=new K(this.base,this.fetcher),s={thread:t,client:e,stream:null,epoch:0,reading:!1,again:!1};this.link=s;let i=Ce(t);this.entries=i.entries,this.trace=i.trace,this.waiting=[],this.error="",this.reconnecting=!1,this.sending=!1,this.deciding=0,this.refresh()}follow(t){if(t!==this.link||t.stream)return;let{client:e,thread:s}=t;t.stream=new F({url:e.url(s,"/stream"),thread:s,ticket:()=>e.ticket(s),renew:()=>e.interrupts(s),open:i=>this.eventSource(i),onEvent:(i,n)=>t===this.link&&this.streamed(i,n),onOpen:()=>t===this.link&&this.refresh(),onReconnecting:i=>{t===this.link&&(this.reconnecting=i)}});try{t.stream.start()}catch(i){this.fail(i)}}disconnect(){this.link?.stream?.stop(),this.link=null}streamed(t,e){t==="step"&&(this.trace=[...this.trace,e].slice(-Kt)),ke.has(t)&&this.refresh()}async refresh(){let t=this.link;if(t){if(t.reading||this.deciding){t.again=!0;return}t.reading=!0;try{do{t.again=!1;let e=t.epoch;try{let s=await t.client.interrupts(t.thread);t===this.link&&e===t.epoch&&(this.waiting=gt(this.waiting,s?.waiting)),this.follow(t)}catch(s){t===this.link&&!(s instanceof A&&s.code==="not_found")&&this.fail(s)}}while(t.again&&t===this.link&&!this.deciding)}finally{t.reading=!1}}}submit(t){t.preventDefault(),this.send()}keydown(t){t.key==="Enter"&&!t.shiftKey&&!t.isComposing&&(t.preventDefault(),this.send())}typed(t){this.text=t.target.value}async send(){let t=this.link,e=this.text.trim();if(!t||!e||this.sending)return;let s=this.renderRoot.activeElement?.matches("button[type=submit]");this.sending=!0,this.error="";try{let i=await t.client.send(t.thread,e);if(t!==this.link)return;this.text="",this.record([{kind:"turn",text:e}]),this.apply(i),this.follow(t)}catch(i){t===this.link&&this.fail(i)}finally{t===this.link&&(this.sending=!1)}s&&(await this.updateComplete,this.renderRoot.querySelector("textarea")?.focus())}async decide(t){let{interrupt:e,decision:s,value:i}=t.detail??{},n=this.link;if(!n||!e?.id||!s)return;this.deciding+=1,n.epoch+=1,this.error="";let o;try{let a={interrupt_id:e.id,decision:s,token:e.token};i!==void 0&&(a.value=i);let d=await n.client.resume(n.thread,a);if(n!==this.link)return;o=this.apply(d),this.follow(n)}catch(a){if(n!==this.link)return;this.fail(a),a instanceof A&&a.code==="interrupt_stale"||(this.waiting=this.waiting.map(u=>u===e?{...u}:u))}finally{n===this.link&&(this.deciding-=1,n.again&&!this.deciding&&this.refresh())}await this.updateComplete,((o===void 0?null:this.renderRoot.querySelector(`[data-entry="${o}"]`))??this.renderRoot.querySelector("[part=log]"))?.focus()}async rate(t,e){let s=this.link;if(!(!s||!t.id))try{await s.client.feedback(s.thread,t.id,e),s===this.link&&(this.entries=this.entries.map(i=>i.n===t.n?{...i,thumb:e}:i))}catch(i){s===this.link&&this.fail(i)}}apply(t){let e=[];t?.reply?.text&&e.push({kind:"reply",id:t.reply.id,text:t.reply.text,sources:t.reply.sources});for(let s of t?.refusals??[])e.push({kind:"refusal",sentence:s.sentence,rule:s.rule??""});return t?.rollback&&e.push({kind:"rollback",report:t.rollback}),this.waiting=gt(this.waiting,t?.waiting),this.record(e)}record(t){if(!t.length)return;let e=(this.entries.at(-1)?.n??0)+1;return this.entries=[...this.entries,...t.map((s,i)=>({...s,n:e+i}))].slice(-Kt),e}fail(t){t instanceof A&&t.code==="run_waiting"?this.waiting=gt(this.waiting,t.body?.waiting):t instanceof A&&t.code==="interrupt_stale"?this.refresh():this.error=t instanceof Error?t.message:String(t)}keepView(){this.link&&v("sessionStorage",Vt(this.link.thread),JSON.stringify({entries:this.entries,trace:this.trace}))}scrollLog(){let t=this.renderRoot.querySelector("[part=log]");t&&(t.scrollTop=t.scrollHeight)}};function gt(r,t){return(t??[]).map(e=>r.find(s=>s.id===e.id&&s.token===e.token)??e)}function Te(r){if(r&&typeof r=="object"){let{title:t,url:e}=r;return String(t??e??JSON.stringify(r))}return String(r)}var Vt=r=>`stalwart-view:${r}`;function Ce(r){try{let t=JSON.parse(b("sessionStorage",Vt(r))??"{}");return{entries:Array.isArray(t.entries)?t.entries:[],trace:Array.isArray(t.trace)?t.trace:[]}}catch{return{entries:[],trace:[]}}}function Oe(){let r=b("localStorage",Wt);return r||(r=Ue(),v("localStorage",Wt,r)),r}function Ue(){if(typeof crypto.randomUUID=="function")return crypto.randomUUID();let r=crypto.getRandomValues(new Uint8Array(16));r[6]=r[6]&15|64,r[8]=r[8]&63|128;let t=[...r].map(e=>e.toString(16).padStart(2,"0")).join("");return`${t.slice(0,8)}-${t.slice(8,12)}-${t.slice(12,16)}-${t.slice(16,20)}-${t.slice(20)}`}var Yt={typed:"origin_typed",reply:"origin_reply",context:"origin_context",computed:"origin_computed",model:"origin_model",result:"origin_result",agent:"origin_agent"};function Ne(r){let t=String(r??"").split(":")[0];return Object.hasOwn(Yt,t)?Yt[t]:void 0}function Ft(r){let t=Ne(r);return t?c(t):String(r??"")}var Jt=[$,m`
    [part='confirm'] {
      border: 1px solid var(--_accent);
      border-radius: var(--_radius);
      padding: var(--_gap);
    }
    [part='turn'] {
      margin: 0 0 calc(var(--_gap) / 2);
      padding-inline-start: var(--_gap);
      border-inline-start: 4px solid var(--_line);
    }
    dl {
      display: grid;
      grid-template-columns: max-content auto auto;
      gap: calc(var(--_gap) / 4) var(--_gap);
    }
    dt {
      font-weight: 600;
    }
    dd {
      margin: 0;
      overflow-wrap: anywhere;
    }
    .value,
    .tool {
      font-family: ui-monospace, monospace;
    }
    [part='irreversible'] {
      color: var(--_warn);
      font-weight: 600;
    }
    [part='choices'] {
      display: flex;
      flex-wrap: wrap;
      gap: calc(var(--_gap) / 2);
      margin: 0;
    }
    [part='choices'] input {
      flex: 1 1 12em;
    }
  `];var Gt={approve:"approve",skip:"skip",cancel_all:"cancelAll",happened:"happened",did_not_happen:"didNotHappen",retry:"retry",done_by_hand:"doneByHand",abandon:"abandon",answer:"send",decline:"decline"},Zt={confirm:"confirmTitle",outcome_unknown:"unknownTitle",saga_stuck:"stuck",delegate:"delegateTitle"},Pe={chosen:{state:!0}},G=class extends g{static get styles(){return Jt}static get properties(){return{interrupt:{attribute:!1},...Pe}}constructor(){super(),this.interrupt=null,this.chosen=""}willUpdate(t){t.has("interrupt")&&(this.chosen="")}render(){let t=this.interrupt;if(!t)return l``;let e=t.kind;return l`<section part="confirm" aria-labelledby="title" data-kind=${e}>
      <h2 id="title">${Re(t)}</h2>
      ${e==="confirm"&&t.question?l`<p class="question">${t.question}</p>`:""}
      ${e==="delegate"?l`<blockquote part="turn">${Xt(t.turn)}</blockquote>`:""}
      ${this.renderArguments(t.arguments??[])} ${this.renderReasons(t.reasons??[])}
      ${t.irreversible?l`<p part="irreversible">${c("irreversible")}</p>`:""}
      ${e==="saga_stuck"?this.renderPending(t.pending??[]):""}
      ${e==="ask"?this.renderAsk():this.renderChoices(t)}
    </section>`}renderArguments(t){return t.length?l`<div part="arguments">
      <h3>${c("argumentsTitle")}</h3>
      <dl>
        ${t.map(e=>l`<dt>${e.name}</dt>
            <dd class="value">${Xt(e.value)}</dd>
            <dd class="origin muted">${Ft(e.origin)}</dd>`)}
      </dl>
    </div>`:""}renderReasons(t){return t.length?l`<div part="reasons">
      <h3>${c("reasonsTitle")}</h3>
      <ul>
        ${t.map(e=>l`<li>${e}</li>`)}
      </ul>
    </div>`:""}renderPending(t){return t.length?l`<ul class="pending">
      ${t.map(e=>l`<li>${c("step",{step:e.step})} <span class="tool">${e.tool}</span></li>`)}
    </ul>`:""}renderChoices(t){return l`<div part="choices">
      ${(t.answers??[]).map((e,s)=>l`<button
          type="button"
          class=${s?"quiet":""}
          data-answer=${e}
          ?disabled=${!!this.chosen}
          @click=${()=>this.decide(e)}
        >${Qt(t.kind,e)}</button>`)}
    </div>`}renderAsk(){return l`<form part="choices" @submit=${this.submitAnswer}>
      <input name="value" type="text" autocomplete="off" aria-labelledby="title" ?readonly=${!!this.chosen} />
      <button type="submit" data-answer="answer" ?disabled=${!!this.chosen}>${Qt("ask","answer")}</button>
    </form>`}submitAnswer(t){t.preventDefault();let s=t.currentTarget.elements.namedItem("value").value;s.trim()&&this.decide("answer",s)}decide(t,e){if(this.chosen||!this.interrupt)return;this.chosen=t;let s=e===void 0?{interrupt:this.interrupt,decision:t}:{interrupt:this.interrupt,decision:t,value:e};this.dispatchEvent(new CustomEvent("stalwart-decision",{bubbles:!0,composed:!0,detail:s}))}};function Re(r){return r.kind==="ask"?r.prompt||r.question||"":Object.hasOwn(Zt,r.kind)?c(Zt[r.kind],{tool:r.tool}):r.question||r.kind}function Qt(r,t){return r==="delegate"&&t==="approve"?c("delegateApprove"):Object.hasOwn(Gt,t)?c(Gt[t]):t}function Xt(r){return typeof r=="string"?r:JSON.stringify(r)}var te=[$,m`
    [part='decision'] {
      border-inline-start: 4px solid var(--_bad);
      padding: calc(var(--_gap) / 2) var(--_gap);
    }
    .refused {
      color: var(--_bad);
    }
    [part='rule'] {
      margin-top: calc(var(--_gap) / 2);
    }
    .rule {
      font-family: ui-monospace, monospace;
      overflow-wrap: anywhere;
    }
  `];var He={open:{state:!0}},Z=class extends g{static get styles(){return te}static get properties(){return{rule:{type:String},sentence:{type:String},...He}}constructor(){super(),this.rule="",this.sentence="",this.open=!1}render(){return l`<div part="decision">
      <p><span class="label refused">${c("refused")}</span> <span class="sentence">${this.sentence}</span></p>
      ${this.rule?l`<button type="button" class="quiet" aria-expanded=${this.open?"true":"false"} aria-controls="rule" @click=${this.toggle}>${c("showRule")}</button>
            <div id="rule" part="rule" ?hidden=${!this.open}>
              <span class="label">${c("rule")}</span> <span class="rule">${this.rule}</span>
            </div>`:""}
    </div>`}toggle(){this.open=!this.open}};var ee=[$,m`
    [part='rollback'] {
      border: 1px solid var(--_line);
      border-radius: var(--_radius);
      padding: var(--_gap);
    }
    .not-undone .label {
      color: var(--_bad);
    }
    .tool {
      font-family: ui-monospace, monospace;
    }
  `];var Q=class extends g{static get styles(){return ee}static get properties(){return{report:{attribute:!1}}}constructor(){super(),this.report=null}render(){let t=this.report?.undone??[],e=this.report?.not_undone??[];return l`<section part="rollback" aria-labelledby="title" ?hidden=${!this.report}>
      <h2 id="title">${c("rollbackTitle")}</h2>
      ${t.length?l`<ul class="undone">
            ${t.map(s=>se(c("undone"),s,s.by==="person"?s.by:""))}
          </ul>`:""}
      ${e.length?l`<ul class="not-undone">
            ${e.map(s=>se(c("notUndoable"),s,s.why))}
          </ul>`:""}
    </section>`}};function se(r,t,e){return l`<li>
    <span class="label">${r}</span> <span class="tool">${t.tool}</span>
    ${e?l` <span class="muted">(${e})</span>`:""}
  </li>`}var re=[$,m`
    [part='trace'] {
      padding: calc(var(--_gap) / 2) 0;
    }
    ol {
      list-style: none;
      padding: 0;
    }
    li {
      display: flex;
      flex-wrap: wrap;
      gap: calc(var(--_gap) / 2);
      padding: calc(var(--_gap) / 4) 0;
      border-bottom: 1px solid var(--_line);
    }
    .tool {
      font-family: ui-monospace, monospace;
    }
  `];var X=class extends g{static get styles(){return re}static get properties(){return{events:{attribute:!1}}}constructor(){super(),this.events=[]}render(){let t=(this.events??[]).filter(e=>e&&e.tool&&(e.type??"step")==="step");return l`<section part="trace" aria-labelledby="title">
      <h2 id="title">${c("traceTitle")}</h2>
      <ol>
        ${t.map(e=>l`<li>
            <span class="step">${c("step",{step:Me(e)})}</span>
            <span class="tool">${e.tool}</span>
            <span class="status muted">${e.status??""}</span>
          </li>`)}
      </ol>
    </section>`}};function Me(r){return r.key!=null?r.key:r.call!=null?`${r.step}.${r.call}`:r.step}var ie="stalwart-access-token",Le='stalwart-chat[data-signin="fragment"]';function ne(r){let t=De()||b("sessionStorage",ie)||"";return t&&(r.fetcher=Ie(r.fetcher,t)),t}function $t(r){let t=r.querySelectorAll(Le);for(let e of t)ne(e)}function De(){let r=new URLSearchParams(location.hash.slice(1)).get("access_token");return r?(v("sessionStorage",ie,r),history.replaceState(history.state,"",location.pathname+location.search),r):""}function Ie(r,t){return(e,s={})=>{let i=new Headers(s.headers);return i.set("Authorization",`Bearer ${t}`),r.call(globalThis,e,{...s,headers:i})}}customElements.get("stalwart-chat")||customElements.define("stalwart-chat",J);customElements.get("stalwart-confirm")||customElements.define("stalwart-confirm",G);customElements.get("stalwart-decision")||customElements.define("stalwart-decision",Z);customElements.get("stalwart-rollback")||customElements.define("stalwart-rollback",Q);customElements.get("stalwart-trace")||customElements.define("stalwart-trace",X);document.readyState==="loading"?document.addEventListener("DOMContentLoaded",()=>$t(document),{once:!0}):$t(document);export{J as StalwartChat,G as StalwartConfirm,Z as StalwartDecision,Q as StalwartRollback,X as StalwartTrace,Dt as format,ve as setStrings,Lt as shipped,ne as signInFromFragment,V as strings};
/*! Bundled license information:

@lit/reactive-element/css-tag.js:
  (**
   * @license
   * Copyright 2019 Google LLC
   * SPDX-License-Identifier: BSD-3-Clause
   *)

@lit/reactive-element/reactive-element.js:
lit-html/lit-html.js:
lit-element/lit-element.js:
  (**
   * @license
   * Copyright 2017 Google LLC
   * SPDX-License-Identifier: BSD-3-Clause
   *)

lit-html/is-server.js:
  (**
   * @license
   * Copyright 2022 Google LLC
   * SPDX-License-Identifier: BSD-3-Clause
   *)

lit-html/directives/if-defined.js:
  (**
   * @license
   * Copyright 2018 Google LLC
   * SPDX-License-Identifier: BSD-3-Clause
   *)
*/
